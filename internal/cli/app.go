package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"parley/agent"
	"parley/history"
	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/budget"
	"parley/internal/chat"
	"parley/internal/config"
	"parley/internal/demo"
	"parley/internal/mcp"
	"parley/internal/toolloop"
	"parley/retry"
)

// toolsOn are the tools on from the start: the profile's, and those --allow-tool names
// (SERVER.TOOL or SERVER), each of a configured server.
func toolsOn(cfg config.Resolved, allowed []string) ([]string, error) {
	servers := map[string]bool{}
	var names []string
	for _, s := range cfg.MCP {
		servers[s.Name] = true
		names = append(names, s.Name)
	}
	for _, a := range allowed {
		if server, _, _ := strings.Cut(a, "."); !servers[server] {
			return nil, usagef("--allow-tool %s: no [mcp.%s] in config.toml (configured: %s)", a, server, strings.Join(names, ", "))
		}
	}
	return append(slices.Clip(cfg.Tools), allowed...), nil
}

// app is parley's wiring: history, the endpoint client and the spend limits it runs under.
type app struct {
	db     *history.DB
	client *agent.Client
	// fallback is the client of the profile's fallback endpoint, nil when it names none.
	fallback *agent.Client
	// others are the clients of the other profiles, which the chat screen's R runs a reply again on.
	others []*agent.Client
	// spend holds every run to the spend limits and prices what the runs used.
	spend *agent.SpendGuard
	// demo is the in-process demo endpoint, nil when a real endpoint is configured.
	demo *demo.Server
	// log is this run's logger, into logFile: every client and the history log through it.
	log     *slog.Logger
	logFile io.Closer
	// system is the system prompt parley starts with; roles are every role defined.
	system config.System
	roles  map[string]config.Role
	// attach are the largest text file and image that may be attached.
	attach attach.Limits
	// readingWidth and mouse are config.toml's for the chat screen; chosen says how the
	// endpoint was chosen when nothing configured it (config.Resolved.Chosen).
	readingWidth int
	mouse        bool
	// theme and notify are the chat screen's colours and turn's-end signal (config.Resolved).
	theme, notify string
	// screenReader runs the chat screen for a screen reader (config.Resolved.ScreenReader).
	screenReader bool
	// tools are the configured tool servers and the tools on (the profile's), nil when
	// config.toml configures none; closing the app closes every server.
	tools  *toolloop.Toolbox
	chosen string
	// needsModel is set when nothing named a model: the endpoint is asked (discover.go).
	needsModel bool
	cfgPath    string
}

// openApp opens the history database and the session o asks for (app.session), then resolves
// the configuration, a continued session on the profile and model it last ran on, with the
// endpoint clients timed by ios's clock. Every error is the user's to fix, and nothing
// existing is overwritten on the way.
func openApp(ctx context.Context, o options, ios *IO) (*app, stored.Session, error) {
	paths, err := config.ResolvePaths(ios.Getenv)
	if err != nil {
		return nil, stored.Session{}, err
	}
	a := &app{}
	if a.db, err = history.Open(paths.DB, history.WithClock(ios.Clock)); err != nil {
		return nil, stored.Session{}, err
	}
	sess, err := a.session(o.cont, o.sessionID, !o.printMode)
	if err != nil {
		a.close()
		return nil, stored.Session{}, err
	}
	fl := o.Flags
	fl.Continued = config.Continued{Session: sess.ID, Profile: sess.Profile, Model: sess.Model}
	cfg, err := config.Resolve(fl, ios.Getenv)
	if err != nil {
		a.close()
		return nil, stored.Session{}, err
	}
	a.system, a.roles, a.attach, a.cfgPath = cfg.System, cfg.Roles, cfg.Attach, cfg.Paths.Config
	a.readingWidth, a.mouse, a.chosen = cfg.ReadingWidth, cfg.Mouse, cfg.Chosen
	a.theme, a.notify, a.screenReader = cfg.Theme, cfg.Notify, cfg.ScreenReader
	ep := cfg.Endpoint
	a.needsModel = ep.Model == "" && !ep.Demo
	if ep.Demo {
		if a.demo, err = demo.Start(demo.Options{Pace: demo.DefaultPace, Clock: ios.Clock}); err != nil {
			a.close()
			return nil, stored.Session{}, fmt.Errorf("cannot start the demo endpoint: %v", err)
		}
		ep.BaseURL = a.demo.URL()
	}
	a.log, a.logFile = openLog(cfg.Paths.Log, chat.NewRedactor(configuredSecrets(cfg)...))
	a.db.SetLogger(a.log)
	if len(cfg.MCP) > 0 {
		on, err := toolsOn(cfg, o.print.AllowTools)
		if err != nil {
			a.close()
			return nil, stored.Session{}, err
		}
		a.tools = toolloop.NewToolbox(mcp.New(cfg.MCP, a.log), on, cfg.Allowed)
	} else if len(o.print.AllowTools) > 0 {
		a.close()
		return nil, stored.Session{}, usagef("--allow-tool %s: config.toml configures no tool servers: add an [mcp.NAME] table", o.print.AllowTools[0])
	}
	// Every client shares endpoint memory with every parley on the history, and the retry
	// budget with every parley of the user on the machine.
	store := endpointStore(a.db, budget.Dir(ios.Getenv), a.log)
	newClient := func(ep agent.Endpoint) *agent.Client {
		ep.Network = agent.NetworkFrom(ios.Getenv, ios.Resolver)
		return agent.NewClient(ep, ios.Clock, retry.DefaultPolicy()).WithStore(store).WithRules(cfg.Rules).WithLogger(a.log)
	}
	a.client = newClient(ep)
	if cfg.Fallback != nil {
		a.fallback = newClient(*cfg.Fallback)
	}
	for _, other := range cfg.Others {
		if !other.Demo {
			a.others = append(a.others, newClient(other))
		}
	}
	a.spend = &agent.SpendGuard{Prices: cfg.Prices, Limits: cfg.Limits, Ledger: a.db, Clock: ios.Clock}
	a.log.Info("parley started", "endpoint", chat.RedactURL(ep.BaseURL), "model", ep.Model, "profile", ep.Name, "pid", os.Getpid())
	return a, sess, nil
}

// machineStore is the history's endpoint memory and pacing with the retry budget of the
// machine's state file in place of the history's own.
type machineStore struct {
	*history.DB
	budget *budget.File
}

func (s machineStore) RecordSend(where string, at time.Time, retry bool, keep time.Duration) error {
	return s.budget.RecordSend(where, at, retry, keep)
}

func (s machineStore) TakeRetry(where string, now time.Time, window time.Duration,
	allow func([]chat.Send, time.Time) (bool, time.Time)) (bool, time.Time, error) {
	return s.budget.TakeRetry(where, now, window, allow)
}

// endpointStore is what the clients share through db, with the retry budget in dir's state
// file when it can be used, else the history's own budget, said once in the log.
func endpointStore(db *history.DB, dir string, log *slog.Logger) agent.EndpointStore {
	f, err := budget.Open(dir)
	if err != nil {
		log.Warn("the retry budget is shared only by the parleys of this history: the machine's budget file cannot be used",
			"dir", dir, "err", err)
		return db
	}
	return machineStore{DB: db, budget: f}
}

// configuredSecrets are the secrets of every endpoint cfg configures, which the log takes out
// of what it quotes (a tool server's stderr, a server's words).
func configuredSecrets(cfg config.Resolved) []string {
	out := cfg.Endpoint.Secrets()
	if cfg.Fallback != nil {
		out = append(out, cfg.Fallback.Secrets()...)
	}
	for _, o := range cfg.Others {
		out = append(out, o.Secrets()...)
	}
	return out
}

func (a *app) close() {
	if a.tools != nil {
		if err := a.tools.Host().Close(); err != nil {
			a.log.Warn("closing the tool servers", "err", err)
		}
	}
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

// session opens the session parley was asked for: with -c the latest, in the chat screen
// (interactive) the latest the screen sent in (of any kind, in a history that knows of none);
// the one named with --session; else a new one. A new session has no id: it is stored with
// its first message, so opening parley and leaving without a word stores nothing.
func (a *app) session(cont bool, id string, interactive bool) (stored.Session, error) {
	switch {
	case id != "":
		return findSession(a.db, id)
	case !cont:
		return stored.Session{}, nil
	}
	var s stored.Session
	err := history.ErrNotFound
	if interactive {
		s, err = a.db.LatestInteractive()
	}
	if errors.Is(err, history.ErrNotFound) {
		s, err = a.db.LatestSession()
	}
	if errors.Is(err, history.ErrNotFound) {
		return stored.Session{}, nil
	}
	return s, err
}
