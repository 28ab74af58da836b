package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"parley/agent"
	"parley/agent/chat"
	"parley/agent/config"
	"parley/agent/demo"
	"parley/history"
	"parley/retry"
)

// app is parley's wiring: history, the endpoint client and the budget it runs under.
type app struct {
	db     *history.DB
	client *agent.Client
	// fallback is the client of the profile's fallback endpoint, nil when it names none.
	fallback *agent.Client
	// budget holds every run to the spend limits and prices what the runs used.
	budget *agent.Budget
	// demo is the in-process demo endpoint, nil when a real endpoint is configured.
	demo    *demo.Server
	logFile *os.File
}

// openApp resolves the configuration and opens the history database. Every error is the
// user's to fix, and nothing existing is overwritten on the way.
func openApp(fl config.Flags, getenv func(string) string) (*app, error) {
	cfg, err := config.Resolve(fl, getenv)
	if err != nil {
		return nil, err
	}
	a := &app{}
	ep := cfg.Endpoint
	if ep.Demo {
		if a.demo, err = demo.Start(demo.Options{Pace: demo.DefaultPace}); err != nil {
			return nil, fmt.Errorf("cannot start the demo endpoint: %v", err)
		}
		ep.BaseURL = a.demo.URL()
	}
	a.logFile = openLog(cfg.Paths.Log)
	if a.db, err = history.Open(cfg.Paths.DB); err != nil {
		a.close()
		return nil, err
	}
	// Every client shares endpoint memory and the retry budget with every parley, through
	// the history database.
	a.client = agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy()).WithStore(a.db)
	if cfg.Fallback != nil {
		a.fallback = agent.NewClient(*cfg.Fallback, chat.SystemClock{}, retry.DefaultPolicy()).WithStore(a.db)
	}
	a.budget = &agent.Budget{Prices: cfg.Prices, Limits: cfg.Limits, Ledger: a.db, Clock: chat.SystemClock{}}
	slog.Info("parley started", "endpoint", ep.BaseURL, "model", ep.Model, "profile", ep.Name, "pid", os.Getpid())
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
		s, err := a.db.Session(id)
		if errors.Is(err, history.ErrNotFound) {
			return s, usagef("no session %q: list them with parley sessions", id)
		}
		return s, err
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
