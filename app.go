package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"parley/agent"
	"parley/history"
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
	demo    *demo.Server
	logFile *os.File
	// system is the system prompt parley starts with; roles are every role defined.
	system config.System
	roles  map[string]config.Role
	// maxAttach is the largest file that may be attached.
	maxAttach int64
	// readingWidth and mouse are config.toml's for the chat screen.
	readingWidth int
	mouse        bool
	// clock times print mode's waits.
	clock chat.Clock
}

// openApp resolves the configuration and opens the history database. Every error is the
// user's to fix, and nothing existing is overwritten on the way.
func openApp(fl config.Flags, getenv func(string) string) (*app, error) {
	cfg, err := config.Resolve(fl, getenv)
	if err != nil {
		return nil, err
	}
	a := &app{system: cfg.System, roles: cfg.Roles, maxAttach: cfg.MaxAttachmentBytes, clock: chat.SystemClock{},
		readingWidth: cfg.ReadingWidth, mouse: cfg.Mouse}
	ep := cfg.Endpoint
	if ep.Model == "" && !ep.Demo {
		if ep.Model, err = onlyModel(ep, cfg.Paths.Config); err != nil {
			return nil, err
		}
	}
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
	newClient := func(ep agent.Endpoint) *agent.Client {
		return agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy()).WithStore(a.db).WithRules(cfg.Rules)
	}
	a.client = newClient(ep)
	if cfg.Fallback != nil {
		a.fallback = newClient(*cfg.Fallback)
	}
	a.spend = &agent.SpendGuard{Prices: cfg.Prices, Limits: cfg.Limits, Ledger: a.db, Clock: chat.SystemClock{}}
	slog.Info("parley started", "endpoint", ep.BaseURL, "model", ep.Model, "profile", ep.Name, "pid", os.Getpid())
	return a, nil
}

// modelsTimeout bounds asking an endpoint for its models at start-up.
const modelsTimeout = 15 * time.Second

// onlyModel asks the endpoint for its models when none was named: the one it serves is used;
// several, or none, are the operator's to choose from.
func onlyModel(ep agent.Endpoint, cfgPath string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), modelsTimeout)
	defer cancel()
	models, err := agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy()).Models(ctx)
	switch {
	case err != nil:
		return "", fmt.Errorf("no model named, and asking the endpoint failed (%v): pass --model NAME or set model in %s", err, cfgPath)
	case len(models) == 0:
		return "", fmt.Errorf("%s lists no models: pass --model NAME or set model in %s", ep.BaseURL, cfgPath)
	case len(models) > 1:
		const shown = 12
		names := strings.Join(models[:min(len(models), shown)], ", ")
		if len(models) > shown {
			names += fmt.Sprintf(" and %d more", len(models)-shown)
		}
		return "", fmt.Errorf("%s serves %d models (%s): pass --model NAME or set model in %s", ep.BaseURL, len(models), names, cfgPath)
	}
	return models[0], nil
}

// startSystem stores the system prompt parley was started with in sess, before its next
// message: one asked for (--role, --system) in any session, a profile's default role only in
// a new one. A new session not stored yet is stored now, as its message follows at once.
func (a *app) startSystem(sess *history.Session) error {
	if a.system.Text == "" || !a.system.Explicit && sess.Messages > 0 {
		return nil
	}
	if sess.ID == "" {
		s, err := a.db.CreateSession()
		if err != nil {
			return err
		}
		*sess = s
	}
	_, err := a.db.PostSystem(sess.ID, history.SystemPrompt{Role: a.system.Role, Text: a.system.Text})
	return err
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
