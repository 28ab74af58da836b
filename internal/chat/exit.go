package chat

// The exit statuses of the interface contract: what parley's exit says of the run, the same
// from every command and from print mode.
const (
	// ExitOK: the reply finished, or the command did what was asked.
	ExitOK = 0
	// ExitFailed: the run failed and sending again cannot help, or the command failed.
	ExitFailed = 1
	// ExitUsage: a mistake in how parley was invoked or configured.
	ExitUsage = 2
	// ExitRetryable: the run failed and sending again later can help.
	ExitRetryable = 3
	// ExitNotStored: the reply finished, but the history could not store it; its text is in
	// the recovery file, and goes into the history when parley next opens it with room.
	ExitNotStored = 4
	// ExitInterrupted: the operator interrupted parley (ctrl+c); the run is stored cancelled.
	// Another signal that stops parley exits with its own 128+N: 143 for SIGTERM, 129 for
	// SIGHUP.
	ExitInterrupted = 130
	// ExitStdoutClosed: print mode's stdout was closed before the reply ended (… | head): the
	// run is stored cancelled, as far as it got.
	ExitStdoutClosed = 141
)
