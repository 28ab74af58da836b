package toolloop

import (
	"context"
	"errors"

	"parley/agent"
	"parley/internal/chat"
)

// Start is a run as both front ends send it: every model call goes through the spend guard,
// as the steps of a Loop offering the tools on when any tool is on, else as one call.
type Start struct {
	// Spend holds each model call to the spend limits; nil checks nothing.
	Spend  *agent.SpendGuard
	Client *agent.Client
	// Tools are the session's; nil or none on: one model call.
	Tools *Toolbox
	Store Store
	Gate  Gate
	// SessionID is the session the spend is counted in; RunID the run the calls are stored with.
	SessionID string
	RunID     int64
	// Steps and Seam are where the run begins (Loop's).
	Steps, Seam int
}

// Stream streams the events of the run sending msgs. errs are the tool servers that could not
// be started, each error naming its server: their tools are not offered, the others are.
func (s Start) Stream(ctx context.Context, msgs []chat.Message) (events <-chan chat.Event, errs []error) {
	if s.Tools == nil || !s.Tools.Any() {
		return s.Spend.Stream(ctx, s.Client, s.SessionID, msgs), nil
	}
	_, entries, errs := s.Tools.Offered(ctx)
	redact := s.Client.Redactor()
	for i, err := range errs {
		errs[i] = errors.New(redact.String(err.Error())) // it may quote the server's stderr
	}
	client := s.Client.WithTools(entries)
	loop := Loop{
		Model: func(ctx context.Context, msgs []chat.Message) <-chan chat.Event {
			return s.Spend.Stream(ctx, client, s.SessionID, msgs)
		},
		Host: s.Tools.Host(), Store: s.Store, Gate: s.Gate, RunID: s.RunID, Steps: s.Steps, Seam: s.Seam,
		Redactor: redact,
	}
	return loop.Run(ctx, msgs), errs
}
