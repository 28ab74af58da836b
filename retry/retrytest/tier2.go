package retrytest

import (
	"time"

	"parley/internal/chat"
)

// Tier2Failed is when every Tier2Case failed: the operator's 14:00, so the times of day the
// front ends show are fixed.
var Tier2Failed = time.Date(2026, 3, 1, 14, 0, 0, 0, time.Local)

// Tier2Case is one stored failure, as both front ends must wait for it: the chat screen's
// countdown and print mode's --wait. Their tests run the same cases, so that neither can
// round, schedule or offer the fallback in a way of its own.
type Tier2Case struct {
	Name string
	// Class is the failed run's stored classification; it failed at Tier2Failed.
	Class chat.Classification
	// Due is how long after the failure the first retry is sent.
	Due time.Duration
	// Shown is what the wait says Elapsed after the failure, before the front end's keys.
	Elapsed time.Duration
	Shown   string
	// Fallback says whether the profile's fallback is offered for it.
	Fallback bool
}

// Tier2Cases are the failures both front ends are held to.
var Tier2Cases = []Tier2Case{
	{Name: "overloaded", Class: chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"},
		Due: 2 * time.Second, Elapsed: 0, Shown: "Provider overloaded — retrying in 2s (attempt 1)", Fallback: true},
	{Name: "a second left, rounded up", Class: chat.Classification{Retryable: true, Class: chat.ServerError, Label: "Server error"},
		Due: 2 * time.Second, Elapsed: 1700 * time.Millisecond, Shown: "Server error — retrying in 1s (attempt 1)", Fallback: true},
	{Name: "a fraction past a second, rounded up", Class: chat.Classification{Retryable: true, Class: chat.RateLimited, Label: "Rate limited",
		RetryAfterUntil: Tier2Failed.Add(8 * time.Second)},
		Due: 8 * time.Second, Elapsed: 600 * time.Millisecond, Shown: "Rate limited — retrying in 8s (attempt 1)", Fallback: true},
	{Name: "provider time beyond the cap", Class: chat.Classification{Retryable: true, Class: chat.RateLimited, Label: "Rate limited",
		RetryAfterUntil: Tier2Failed.Add(50 * time.Minute)},
		Due: 50 * time.Minute, Elapsed: time.Second, Shown: "Rate limited — retrying after 14:50", Fallback: true},
	{Name: "network, no fallback", Class: chat.Classification{Retryable: true, Class: chat.Network, Label: "Network error"},
		Due: 2 * time.Second, Elapsed: 0, Shown: "Network error — retrying in 2s (attempt 1)", Fallback: false},
	{Name: "timeout, no fallback", Class: chat.Classification{Retryable: true, Class: chat.Timeout, Label: "Timed out"},
		Due: 2 * time.Second, Elapsed: 0, Shown: "Timed out — retrying in 2s (attempt 1)", Fallback: false},
}
