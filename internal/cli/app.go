package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"parley/agent"
	"parley/history"
	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/config"
	"parley/internal/demo"
	"parley/retry"
)

// app is parley's wiring: history, the endpoint client and the spend limits it runs under.
type app struct {
	db     *history.DB
	client *agent.Client
	// fallback is the client of the profile's fallback endpoint, nil when it names none.
	fallback *agent.Client
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
	// readingWidth and mouse are config.toml's for the chat screen.
	readingWidth int
	mouse        bool
	// needsModel is set when nothing named a model: the endpoint is asked (discover.go).
	needsModel bool
	cfgPath    string
}

// openApp resolves the configuration and opens the history database, with the endpoint
// clients timed by ios's clock. Every error is the user's to fix, and nothing existing is
// overwritten on the way.
func openApp(ctx context.Context, fl config.Flags, ios *IO) (*app, error) {
	cfg, err := config.Resolve(fl, ios.Getenv)
	if err != nil {
		return nil, err
	}
	a := &app{system: cfg.System, roles: cfg.Roles, attach: cfg.Attach, readingWidth: cfg.ReadingWidth, mouse: cfg.Mouse, cfgPath: cfg.Paths.Config}
	ep := cfg.Endpoint
	a.needsModel = ep.Model == "" && !ep.Demo
	if ep.Demo {
		if a.demo, err = demo.Start(demo.Options{Pace: demo.DefaultPace, Clock: ios.Clock}); err != nil {
			return nil, fmt.Errorf("cannot start the demo endpoint: %v", err)
		}
		ep.BaseURL = a.demo.URL()
	}
	a.log, a.logFile = openLog(cfg.Paths.Log)
	if a.db, err = history.Open(cfg.Paths.DB); err != nil {
		a.close()
		return nil, err
	}
	a.db.SetLogger(a.log)
	// Every client shares endpoint memory and the retry budget with every parley, through
	// the history database.
	newClient := func(ep agent.Endpoint) *agent.Client {
		return agent.NewClient(ep, ios.Clock, retry.DefaultPolicy()).WithStore(a.db).WithRules(cfg.Rules).WithLogger(a.log)
	}
	a.client = newClient(ep)
	if cfg.Fallback != nil {
		a.fallback = newClient(*cfg.Fallback)
	}
	a.spend = &agent.SpendGuard{Prices: cfg.Prices, Limits: cfg.Limits, Ledger: a.db, Clock: ios.Clock}
	a.log.Info("parley started", "endpoint", chat.RedactURL(ep.BaseURL), "model", ep.Model, "profile", ep.Name, "pid", os.Getpid())
	return a, nil
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
// --session, else a new one. A new session has no id: it is stored with its first message, so
// opening parley and leaving without a word stores nothing.
func (a *app) session(cont bool, id string) (history.Session, error) {
	switch {
	case id != "":
		return findSession(a.db, id)
	case cont:
		s, err := a.db.LatestSession()
		if errors.Is(err, history.ErrNotFound) {
			return history.Session{}, nil
		}
		return s, err
	default:
		return history.Session{}, nil
	}
}
