package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"parley/agent/chat"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input, Output float64
}

// Cost returns what u costs at p, in US dollars.
func (p Price) Cost(u chat.Usage) float64 {
	return (float64(u.PromptTokens)*p.Input + float64(u.CompletionTokens)*p.Output) / 1e6
}

// Prices holds the price of each model parley knows one for, by model name.
type Prices map[string]Price

// DefaultPrices returns OpenAI's list prices (standard tier, US dollars per million tokens)
// for its common chat models, as published when this parley was built. Profiles override them.
func DefaultPrices() Prices {
	return Prices{
		"gpt-5":         {1.25, 10},
		"gpt-5-mini":    {0.25, 2},
		"gpt-5-nano":    {0.05, 0.40},
		"gpt-4.1":       {2, 8},
		"gpt-4.1-mini":  {0.40, 1.60},
		"gpt-4.1-nano":  {0.10, 0.40},
		"gpt-4o":        {2.50, 10},
		"gpt-4o-mini":   {0.15, 0.60},
		"o3":            {2, 8},
		"o3-mini":       {1.10, 4.40},
		"o4-mini":       {1.10, 4.40},
		"o1":            {15, 60},
		"gpt-4-turbo":   {10, 30},
		"gpt-3.5-turbo": {0.50, 1.50},
	}
}

// Of returns the price of model: its own entry, else the entry of the name after a provider
// prefix ("openai/gpt-4o-mini" as OpenRouter names it). A model without a price costs nothing.
func (p Prices) Of(model string) Price {
	if pr, ok := p[model]; ok {
		return pr
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return p[model[i+1:]]
	}
	return Price{}
}

// Spent is what a set of runs used: tokens, input and output together, and their cost.
type Spent struct {
	Tokens int
	// Cost is in US dollars.
	Cost float64
}

// SpentOf prices usage by model.
func (p Prices) SpentOf(byModel map[string]chat.Usage) Spent {
	var s Spent
	for model, u := range byModel {
		s.Tokens += u.PromptTokens + u.CompletionTokens
		s.Cost += p.Of(model).Cost(u)
	}
	return s
}

// String writes s as the header shows it: "$0.042 · 12.3k tok", or "12.3k tok" when nothing
// was priced.
func (s Spent) String() string {
	if s.Cost == 0 {
		return FormatTokens(s.Tokens) + " tok"
	}
	return FormatCost(s.Cost) + " · " + FormatTokens(s.Tokens) + " tok"
}

// FormatCost writes an amount of US dollars: three decimals under a dollar, two from there,
// and "<$0.001" for a cost too small to show.
func FormatCost(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd < 0.0005:
		return "<$0.001"
	case usd < 1:
		return fmt.Sprintf("$%.3f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// FormatTokens writes a token count briefly: 950, 12.3k, 1.2M.
func FormatTokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 1_000_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

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

// Budget holds a run to the spend limits: before each request it adds the estimate of the
// request's prompt to what is already stored as spent, and refuses the request when that
// would pass a limit. A reply's own length cannot be known before it is written, so one reply
// may take the spend past a limit; its usage is stored when it ends, and the next request is
// then refused. A model without a price spends no money, so only token limits stop it. The
// day's spend is read from the Ledger, so it survives a restart.
type Budget struct {
	Prices Prices
	Limits Limits
	Ledger Ledger
	// Clock tells the day: it starts at midnight in the location of Clock.Now().
	Clock chat.Clock
}

// Stream runs c.Stream for session sessionID under the budget: a request that would pass a
// limit is not sent, and the run fails as spend_limit_exceeded, which is not retryable. A nil
// Budget checks nothing.
func (b *Budget) Stream(ctx context.Context, c *Client, sessionID string, msgs []chat.Message) <-chan chat.Event {
	if b == nil {
		return c.Stream(ctx, msgs)
	}
	model := c.Endpoint().Model
	return c.stream(ctx, msgs, func(sent []chat.Message) *chat.Classification {
		return b.Check(sessionID, model, sent)
	})
}

// Session returns what session sessionID has spent so far.
func (b *Budget) Session(sessionID string) (Spent, error) {
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
func (b *Budget) Check(sessionID, model string, msgs []chat.Message) *chat.Classification {
	l := b.Limits
	prompt := chat.Usage{PromptTokens: EstimateTokens(msgs)}
	next := Spent{Tokens: prompt.PromptTokens, Cost: b.Prices.Of(model).Cost(prompt)}
	refuse := func(msg string, until time.Time) *chat.Classification {
		return &chat.Classification{
			Class: chat.SpendLimitExceeded, Label: chat.Label(chat.SpendLimitExceeded),
			Message: msg + "; no request was sent", RetryAfterUntil: until,
		}
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
			scope, FormatCost(spent.Cost), FormatCost(maxCost), FormatCost(next.Cost), costKey)
	}
	if maxTokens > 0 && spent.Tokens+next.Tokens > maxTokens {
		return fmt.Sprintf("%s: %s tokens used of the %s limit, and this prompt is about %s more (raise %s)",
			scope, FormatTokens(spent.Tokens), FormatTokens(maxTokens), FormatTokens(next.Tokens), tokensKey)
	}
	return ""
}
