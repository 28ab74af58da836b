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
	// ExitInterrupted: the operator interrupted parley (ctrl+c); the run is stored cancelled.
	ExitInterrupted = 130
)
