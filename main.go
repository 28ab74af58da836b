// Command parley is a terminal chat client for OpenAI-compatible LLM endpoints that fails
// honestly: it recovers by itself where that is safe, shows a visible, cancellable wait where
// it is not, never retries what cannot succeed, and never loses a word.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"

	"parley/history"
	"parley/internal/attach"
	"parley/internal/chat"
	"parley/tui"
)

// Exit statuses, as the interface contract gives them.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitRetryable   = 3
	exitInterrupted = 130
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// usageError is a mistake in how parley was invoked or configured: exit 2, one line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

func run(args []string, stdin *os.File, stdout, stderr *os.File, getenv func(string) string) int {
	code, err := dispatch(args, stdin, stdout, stderr, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "parley: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) || code == exitOK {
			code = exitUsage
		}
	}
	return code
}

// process is what a subcommand is given of the process it runs in.
type process struct {
	stdin  *os.File
	stdout *os.File
	getenv func(string) string
}

// subcommands are parley's commands besides print mode and the chat screen, by name.
var subcommands = map[string]func(args []string, proc process) (int, error){
	"sessions":    listSessions,
	"export":      exportSession,
	"demo-server": serveDemo,
	"classify":    classifyFailure,
	"search":      search,
	"roles":       listRoles,
	"version":     printVersion,
}

// dispatch runs a subcommand, print mode or the chat screen, and returns the exit status.
func dispatch(args []string, stdin *os.File, stdout, stderr *os.File, getenv func(string) string) (int, error) {
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(args[1:], process{stdin: stdin, stdout: stdout, getenv: getenv})
		}
	}
	o, err := parseFlags(args, stdin)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitOK, nil
	}
	if err != nil {
		return exitUsage, err
	}
	if o.version {
		fmt.Fprintln(stdout, versionLine())
		return exitOK, nil
	}
	a, err := openApp(o.Flags, getenv)
	if err != nil {
		return exitUsage, err
	}
	defer a.close()
	// Attachments are read before a session is opened: one that is refused sends nothing.
	files, err := readAttachments(o.files, a.maxAttach)
	if err == nil && o.piped != "" {
		err = attach.Check("stdin", []byte(o.piped), a.maxAttach)
	}
	if err != nil {
		return exitUsage, err
	}
	sess, err := a.session(o.cont, o.sessionID)
	if err != nil {
		return exitUsage, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.printMode {
		return printReply(ctx, a, sess, attach.Compose(o.prompt, o.piped, files), o.print, stdout, stderr), nil
	}
	if addr := getenv("PARLEY_PPROF"); addr != "" {
		if err := servePprof(addr); err != nil {
			return exitUsage, err
		}
	}
	return chatScreen(ctx, a, sess, o.prompt, files)
}

// readAttachments reads the files to attach, stopping at the first that is refused.
func readAttachments(paths []string, limit int64) ([]attach.File, error) {
	var files []attach.File
	for _, p := range paths {
		f, err := attach.Read(p, limit)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// chatScreen runs the chat screen on sess until the operator quits. question, when set, is
// sent as soon as the session is open, with files attached; files alone wait for the first
// message.
func chatScreen(ctx context.Context, a *app, sess history.Session, question string, files []attach.File) (int, error) {
	m := tui.New(tui.Options{DB: a.db, Client: a.client, Fallback: a.fallback, Session: sess, Demo: a.demo, Clock: chat.SystemClock{}, Spend: a.spend,
		System:         history.SystemPrompt{Role: a.system.Role, Text: a.system.Text},
		SystemExplicit: a.system.Explicit, Roles: a.roles, MaxAttachmentBytes: a.maxAttach,
		ReadingWidth: a.readingWidth, Mouse: a.mouse,
		Send: question, Attachments: files})
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return exitFailed, err
	}
	return exitOK, nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `parley: a terminal chat client for OpenAI-compatible endpoints

usage:
  parley [flags]                  open the chat screen (a new session)
  parley [flags] QUESTION         open the chat screen and send QUESTION
  parley -p PROMPT [flags]        print mode: stream one reply to stdout
  echo PROMPT | parley [flags]    print mode, prompt from stdin
  cat FILE | parley -p PROMPT     print mode: PROMPT, a blank line, then the piped text
  parley sessions [--json]        list sessions
  parley sessions rm ID…          delete sessions
  parley sessions title ID TEXT   rename a session
  parley search WORDS [--json]    find past messages
  parley export ID [--json|--markdown]
  parley classify [FILE] [--json] how parley classifies a raw failure (response or stream text)
  parley roles [--json]           list roles (roles/NAME.md beside config.toml, [roles.NAME])
  parley version                  print the version

flags:
`)
	fs := flagSet(new(options))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
exit status: 0 succeeded, 1 failed (not retryable), 2 usage or configuration error,
3 failed (retryable), 130 interrupted
`)
}

// writeJSON is every JSON output of parley: indented, with <, > and & left as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
