// Command parley is a terminal chat client for OpenAI-compatible LLM endpoints that fails
// honestly: it recovers by itself where that is safe, shows a visible, cancellable wait where
// it is not, never retries what cannot succeed, and never loses a word.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"parley/agent"
	"parley/agent/chat"
	"parley/agent/demo"
	"parley/history"
	"parley/retry"
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

func dispatch(args []string, stdin *os.File, stdout, stderr *os.File, getenv func(string) string) (int, error) {
	if len(args) > 0 {
		switch args[0] {
		case "sessions":
			return listSessions(args[1:], stdout, getenv)
		case "export":
			return exportSession(args[1:], stdout, getenv)
		case "demo-server":
			return serveDemo(args[1:], stdout)
		}
	}
	fs := flag.NewFlagSet("parley", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		prompt    = fs.String("p", "", "print mode: send `PROMPT`, stream the reply to stdout, exit")
		jsonOut   = fs.Bool("json", false, "print mode: print one JSON object at the end")
		cont      = fs.Bool("c", false, "continue the latest session")
		sessionID = fs.String("session", "", "open session `ID`")
		fl        endpointFlags
	)
	fs.StringVar(&fl.baseURL, "base-url", "", "endpoint base `URL`, e.g. http://127.0.0.1:11434/v1")
	fs.StringVar(&fl.model, "model", "", "model `NAME`")
	fs.StringVar(&fl.keyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	fs.StringVar(&fl.profile, "profile", "", "config profile or preset `NAME`")
	fs.BoolVar(&fl.demo, "demo", false, "use the built-in offline demo endpoint")
	fs.Func("max-spend", "stop before today's spend, all sessions together, passes `USD` (e.g. 0.50)", func(s string) error {
		v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return errors.New("want an amount of US dollars such as 0.50")
		}
		fl.maxSpend = v
		return nil
	})
	fs.Func("max-tokens-session", "stop before this session's tokens, input and output, pass `N`", func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return errors.New("want a whole number of tokens such as 50000")
		}
		fl.maxTokensSession = v
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
			return exitOK, nil
		}
		return exitUsage, usagef("%v (see parley -h)", err)
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q: to send a prompt use parley -p %q (see parley -h)", fs.Arg(0), fs.Arg(0))
	}
	if *cont && *sessionID != "" {
		return exitUsage, usagef("-c and --session both choose a session: use one")
	}
	promptSet := false
	fs.Visit(func(f *flag.Flag) { promptSet = promptSet || f.Name == "p" })
	printMode := promptSet || !term.IsTerminal(stdin.Fd())
	if *jsonOut && !printMode {
		return exitUsage, usagef("--json is for print mode: add -p PROMPT")
	}
	if printMode && !promptSet {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return exitUsage, usagef("reading the prompt from stdin: %v", err)
		}
		*prompt = string(b)
	}
	if printMode && *prompt == "" {
		return exitUsage, usagef("empty prompt: pass -p PROMPT or pipe the prompt on stdin")
	}

	a, err := openApp(fl, getenv)
	if err != nil {
		return exitUsage, err
	}
	defer a.close()
	sess, err := a.session(*cont, *sessionID)
	if err != nil {
		return exitUsage, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if printMode {
		return printReply(ctx, a, sess, *prompt, *jsonOut, stdout, stderr), nil
	}
	m := tui.New(tui.Options{DB: a.db, Client: a.client, Session: sess, Demo: a.demo, Clock: chat.SystemClock{}, Budget: a.budget})
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return exitFailed, err
	}
	return exitOK, nil
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `parley: a terminal chat client for OpenAI-compatible endpoints

usage:
  parley [flags]                  open the chat screen (a new session)
  parley -p PROMPT [flags]        print mode: stream one reply to stdout
  echo PROMPT | parley [flags]    print mode, prompt from stdin
  parley sessions [--json]        list sessions
  parley export ID [--json|--markdown]

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
exit status: 0 succeeded, 1 failed (not retryable), 2 usage or configuration error,
3 failed (retryable), 130 interrupted
`)
}

// app is parley's wiring: configuration, history, and the endpoint client.
type app struct {
	paths  paths
	db     *history.DB
	client *agent.Client
	// budget holds every run to the spend limits and prices what the runs used.
	budget *agent.Budget
	// demo is the in-process demo endpoint, nil when a real endpoint is configured.
	demo    *demo.Server
	logFile *os.File
}

// openApp resolves the configuration and opens the history database. Every error is the
// user's to fix, and nothing existing is overwritten on the way.
func openApp(fl endpointFlags, getenv func(string) string) (*app, error) {
	p, err := resolvePaths(getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := loadConfig(p.config)
	if err != nil {
		return nil, err
	}
	ep, prof, err := resolveEndpoint(cfg, p.config, fl, getenv)
	a := &app{paths: p}
	if errors.Is(err, errUseDemo) {
		if a.demo, err = demo.Start(demo.Options{Pace: demo.DefaultPace}); err != nil {
			return nil, fmt.Errorf("cannot start the demo endpoint: %v", err)
		}
		ep = agent.Endpoint{Name: "demo", BaseURL: a.demo.URL(), Model: "parley-demo", Demo: true}
		if fl.model != "" {
			ep.Model = fl.model
		}
	} else if err != nil {
		return nil, err
	}
	a.logFile = openLog(p.log)
	if a.db, err = history.Open(p.db); err != nil {
		a.close()
		return nil, err
	}
	a.client = agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy())
	prices, limits := spendSettings(cfg, prof, ep.Model, fl)
	a.budget = &agent.Budget{Prices: prices, Limits: limits, Ledger: a.db, Clock: chat.SystemClock{}}
	slog.Info("parley started", "endpoint", ep.BaseURL, "model", ep.Model, "profile", ep.Name, "pid", os.Getpid())
	return a, nil
}

// openLog sends slog to parley's log file (0600). Logging never reaches the terminal: when
// the file cannot be opened, logs are dropped.
func openLog(path string) *os.File {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(f, nil)))
	return f
}

func (a *app) close() {
	if a.db != nil {
		a.db.Close()
	}
	if a.demo != nil {
		a.demo.Close()
	}
	if a.logFile != nil {
		a.logFile.Close()
	}
}

// session opens the session parley was asked for: the latest with -c, the one named with
// --session, else a new one.
func (a *app) session(cont bool, id string) (history.Session, error) {
	switch {
	case id != "":
		s, err := a.db.Session(id)
		if errors.Is(err, history.ErrNotFound) {
			return s, usagef("no session %q: list them with parley sessions", id)
		}
		return s, err
	case cont:
		s, err := a.db.LatestSession()
		if errors.Is(err, history.ErrNotFound) {
			return a.db.CreateSession()
		}
		return s, err
	default:
		return a.db.CreateSession()
	}
}
