package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"parley/agent"
	"parley/internal/chat"
	"parley/internal/printmode"
	"parley/internal/sanitize"
	"parley/retry"
)

// When nothing names a model, parley asks the endpoint for its models: the one it serves is
// used. Asking fails as a run would, classified, with the fix named; print mode then exits as
// the failure says (retryable or not), waiting first with --wait as for a run; the chat screen
// opens anyway, saying why, or on the /model list when there are several.

// modelsTimeout bounds one request for an endpoint's models.
const modelsTimeout = 15 * time.Second

// askModels asks the endpoint for its models, and with wait > 0 asks again after a retryable
// failure as Tier 2 would (2 s, 4 s, … never before the provider's time) until wait has passed,
// with the countdown on stderr.
func (a *app) askModels(ctx context.Context, wait time.Duration, ios *IO) ([]string, error) {
	clock, start := ios.Clock, ios.Clock.Now()
	var t2 retry.Tier2
	for n := int64(1); ; n++ {
		rctx, cancel := context.WithTimeout(ctx, modelsTimeout)
		models, err := a.client.Models(rctx)
		cancel()
		var le *agent.ListError
		if err == nil || wait <= 0 || !errors.As(err, &le) {
			return models, err
		}
		t2.Ended(n, chat.StatusFailed)
		if !t2.Arm(chat.RunResult{RunID: n, Status: chat.StatusFailed, Retry: &le.Class, Attempts: 1}, clock.Now()) ||
			t2.Due().Sub(start) > wait {
			return nil, err
		}
		if !printmode.Countdown(ctx, clock, &t2, ios.ErrOut, ios.ErrTerminal, a.client.Endpoint().RouteLabel()) {
			return nil, ctx.Err()
		}
		t2.Sent(t2.Token(), n+1)
	}
}

// modelFor print mode: the endpoint's only model, or why there is none to use. A failure to
// ask is reported as print mode reports any failure (exit 1 or 3); several models, or none,
// are the operator's to choose from (exit 2).
func (a *app) modelForPrint(ctx context.Context, ios *IO, wait time.Duration, jsonOut bool) (code int, err error) {
	models, err := a.askModels(ctx, wait, ios)
	var le *agent.ListError
	switch {
	case err != nil && printmode.TimedOut(ctx) != nil:
		return printmode.FailBeforeRun(ios.Out, ios.ErrOut, jsonOut, *printmode.TimedOut(ctx), ios.Clock.Now()), nil
	case errors.As(err, &le):
		return printmode.FailBeforeRun(ios.Out, ios.ErrOut, jsonOut, le.Class, ios.Clock.Now()), nil
	case err != nil:
		return chat.ExitInterrupted, err
	case len(models) != 1:
		return chat.ExitUsage, a.chooseModel(models)
	}
	a.useModel(models[0])
	return chat.ExitOK, nil
}

// modelForScreen asks the endpoint for its models for the chat screen, which opens whatever
// the answer: with the only model, on the list to choose from, or saying why there is none.
func (a *app) modelForScreen(ctx context.Context, ios *IO) (choose []string, problem string) {
	models, err := a.askModels(ctx, 0, ios)
	var le *agent.ListError
	switch {
	case errors.As(err, &le) && (le.Class.Class == chat.AuthFailed || le.Class.Class == chat.CredentialsUnresolved):
		// naming a model cures no key: the failure's own fix is the one to follow
		return nil, fmt.Sprintf("no model named, and the endpoint's could not be listed: %v", err)
	case err != nil:
		return nil, fmt.Sprintf("no model named, and the endpoint's could not be listed: %v — /model NAME chooses one", err)
	case len(models) == 0:
		return nil, "no model named, and the endpoint lists none — /model NAME chooses one"
	case len(models) > 1:
		return models, ""
	}
	a.useModel(models[0])
	return nil, ""
}

// chooseModel says that the operator must name one of models (none when the endpoint lists
// none).
func (a *app) chooseModel(models []string) error {
	where := chat.RedactURL(a.client.Endpoint().BaseURL)
	if len(models) == 0 {
		return usagef("%s lists no models: pass --model NAME or set model in %s", where, a.cfgPath)
	}
	const shown = 12
	var listed []string
	for _, m := range models[:min(len(models), shown)] {
		listed = append(listed, sanitize.Name(m)) // a server's ids, as text whatever they hold
	}
	names := strings.Join(listed, ", ")
	if len(models) > shown {
		names += fmt.Sprintf(" and %d more", len(models)-shown)
	}
	return usagef("%s serves %d models (%s): pass --model NAME or set model in %s", where, len(models), names, a.cfgPath)
}

// useModel makes model the one the endpoint's client sends to.
func (a *app) useModel(model string) {
	a.client = a.client.WithModel(model)
	a.needsModel = false
}
