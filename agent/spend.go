package agent

import (
	"context"
	"fmt"
	"time"

	"parley/internal/chat"
)

// Limits caps spending, per session and per calendar day (all sessions), in US dollars and
// in tokens. A zero field sets no limit.
type Limits struct {
	SessionCost, DayCost     float64
	SessionTokens, DayTokens int
}

// Ledger reports the usage already stored, summed per model. history.DB is one.
type Ledger interface {
	// SessionUsage is the usage of every run of a session.
	SessionUsage(sessionID string) (map[string]chat.Usage, error)
	// UsageSince is the usage of the runs of every session that ended at or after t.
	UsageSince(t time.Time) (map[string]chat.Usage, error)
}

// SpendGuard holds a run to the spend limits: before each request it adds the estimate of the
// request's prompt to what is already stored as spent, and refuses the request when that
// would pass a limit. A reply's own length cannot be known before it is written, so one reply
// may take the spend past a limit; its usage is stored when it ends, and the next request is
// then refused. A model without a price spends no money, so only token limits stop it. The
// day's spend is read from the Ledger, so it survives a restart.
type SpendGuard struct {
	Prices Prices
	Limits Limits
	Ledger Ledger
	// Clock tells the day: it starts at midnight in the location of Clock.Now().
	Clock chat.Clock
}

// Stream runs c.Stream for session sessionID under the spend limits: a request that would pass a
// limit is not sent, and the run fails as spend_limit_exceeded, which is not retryable. A nil
// SpendGuard checks nothing.
func (b *SpendGuard) Stream(ctx context.Context, c *Client, sessionID string, msgs []chat.Message) <-chan chat.Event {
	if b == nil {
		return c.Stream(ctx, msgs)
	}
	model := c.Endpoint().Model
	return c.stream(ctx, msgs, func(sent []chat.Message) *chat.Classification {
		return b.Check(sessionID, model, sent)
	})
}

// Session returns what session sessionID has spent so far.
func (b *SpendGuard) Session(sessionID string) (Spent, error) {
	u, err := b.Ledger.SessionUsage(sessionID)
	if err != nil {
		return Spent{}, err
	}
	return b.Prices.SpentOf(u), nil
}

// Check reports whether a request of msgs to model, in session sessionID, may be sent: nil
// when it may, else the spend_limit_exceeded classification that says which limit it would
// pass. When what is spent cannot be read the request is refused too: a limit that cannot be
// checked is not a limit.
func (b *SpendGuard) Check(sessionID, model string, msgs []chat.Message) *chat.Classification {
	l := b.Limits
	prompt := chat.Usage{PromptTokens: EstimateTokens(msgs)}
	next := Spent{Tokens: prompt.PromptTokens, Cost: b.Prices.Of(model).Cost(prompt)}
	refuse := func(msg string, until time.Time) *chat.Classification {
		cls := chat.NewClassification(chat.SpendLimitExceeded, msg+"; no request was sent")
		cls.RetryAfterUntil = until
		return &cls
	}
	if l.SessionCost > 0 || l.SessionTokens > 0 {
		spent, err := b.Session(sessionID)
		if err != nil {
			return refuse("cannot read what this session has spent: "+err.Error(), time.Time{})
		}
		if msg := crossed("this session", spent, next, l.SessionCost, l.SessionTokens, "max_spend_session", "max_tokens_session or --max-tokens-session"); msg != "" {
			return refuse(msg, time.Time{})
		}
	}
	if l.DayCost > 0 || l.DayTokens > 0 {
		now := b.Clock.Now()
		y, m, d := now.Date()
		midnight := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
		u, err := b.Ledger.UsageSince(midnight)
		if err != nil {
			return refuse("cannot read what was spent today: "+err.Error(), time.Time{})
		}
		if msg := crossed("today", b.Prices.SpentOf(u), next, l.DayCost, l.DayTokens, "max_spend_day or --max-spend", "max_tokens_day"); msg != "" {
			return refuse(msg+"; the daily count starts again at midnight", midnight.AddDate(0, 0, 1))
		}
	}
	return nil
}

// crossed says which limit spent plus next would pass, naming the setting that raises it, or
// returns "" when it passes none. A request that costs nothing (its model has no price)
// spends no money, so a money limit lets it go.
func crossed(scope string, spent, next Spent, maxCost float64, maxTokens int, costKey, tokensKey string) string {
	if maxCost > 0 && next.Cost > 0 && spent.Cost+next.Cost > maxCost {
		return fmt.Sprintf("%s: %s spent of the %s limit, and this prompt costs about %s more (raise %s)",
			scope, chat.FormatCost(spent.Cost), chat.FormatCost(maxCost), chat.FormatCost(next.Cost), costKey)
	}
	if maxTokens > 0 && spent.Tokens+next.Tokens > maxTokens {
		return fmt.Sprintf("%s: %s tokens used of the %s limit, and this prompt is about %s more (raise %s)",
			scope, chat.FormatTokens(spent.Tokens), chat.FormatTokens(maxTokens), chat.FormatTokens(next.Tokens), tokensKey)
	}
	return ""
}
