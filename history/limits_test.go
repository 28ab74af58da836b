package history

import (
	"testing"
	"time"

	"parley/internal/chat"
)

// What a provider says is left of its limits is read back by every parley, per endpoint,
// model and key variable, with the times it gave and -1 for the counts it did not.
func TestRemainingIsSharedPerEndpoint(t *testing.T) {
	t.Parallel()
	db, other, ep, now := endpointHandles(t)
	r := chat.Remaining{Requests: 0, RequestLimit: 500, RequestsReset: now.Add(5 * time.Second), Tokens: -1, SaidAt: now}
	if err := db.RememberRemaining(ep, r); err != nil {
		t.Fatal(err)
	}
	got, ok, err := other.Remaining(ep)
	if err != nil || !ok || got.Requests != 0 || got.RequestLimit != 500 || !got.RequestsReset.Equal(r.RequestsReset) ||
		got.Tokens != -1 || !got.TokensReset.IsZero() || !got.SaidAt.Equal(now) {
		t.Fatalf("another parley reads %+v, %v, %v", got, ok, err)
	}
	if _, ok, _ := other.Remaining(chat.EndpointKey{BaseURL: ep.BaseURL, Model: "gpt-4o-mini", KeyEnv: ep.KeyEnv}); ok {
		t.Error("another model's limits were read")
	}
	r.Requests, r.SaidAt = 499, now.Add(time.Minute)
	if err := other.RememberRemaining(ep, r); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := db.Remaining(ep); got.Requests != 499 {
		t.Errorf("a later answer did not replace the earlier: %+v", got)
	}
}
