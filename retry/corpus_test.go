package retry

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/retry/retrytest"
)

// corpusAdvice is the wait each entry's retry advice works out to, for the entries that give one.
var corpusAdvice = map[string]time.Duration{
	"E01": 18642 * time.Millisecond, // header and message agree
	"E02": 20 * time.Second,
	"E20": 37 * time.Second, // retry-after, retry-after-ms and the message agree
	"E36": 34400 * time.Millisecond,
	"E44": 2 * time.Second, // retry-after 2 is later than the message's 1.984999999s
}

// corpusFailure builds the Failure the agent would report for an entry: ParseRaw reads the
// response as the agent does, a connect entry's text is the error.
func corpusFailure(t *testing.T, e retrytest.CorpusEntry, now time.Time) Failure {
	t.Helper()
	raw, ok := e.Raw()
	if !ok {
		return Failure{Phase: BeforeHeaders, Err: errors.New(e.Body), Now: now}
	}
	f, err := ParseRaw([]byte(raw))
	if err != nil {
		t.Fatalf("%s: %v", e.ID, err)
	}
	f.Now = now
	return f
}

// classLabel is the label c should carry: its class's, ResetLabel for a quota the provider said
// frees soon, or PermissionLabel for a permission.
func classLabel(c chat.Classification) string {
	if strings.Contains(c.Rule, ruleStatedReset) {
		return ResetLabel
	}
	if c.Rule == rulePermission {
		return PermissionLabel
	}
	return chat.Label(c.Class)
}

func TestClassifyCorpus(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, e := range retrytest.Corpus(t) {
		t.Run(e.ID, func(t *testing.T) {
			c := Classify(corpusFailure(t, e, now))
			if c.Class != chat.Class(e.ExpectedClass) || c.Retryable != e.Retryable {
				t.Errorf("%s %s: got %s retryable=%v, want %s retryable=%v (message %q)",
					e.Provider, e.Scenario, c.Class, c.Retryable, e.ExpectedClass, e.Retryable, c.Message)
			}
			if c.Rule == "" || c.Label != classLabel(c) || c.Message == "" {
				t.Errorf("rule %q, label %q, message %q: want a rule, the class's label and a message", c.Rule, c.Label, c.Message)
			}
			var want time.Time
			if d, ok := corpusAdvice[e.ID]; ok {
				want = now.Add(d)
			}
			if !c.RetryAfterUntil.Equal(want) {
				t.Errorf("RetryAfterUntil = %v, want %v", c.RetryAfterUntil, want)
			}
		})
	}
}

func TestCorpusStreamsReadAsTheAgentSeesThem(t *testing.T) {
	byID := map[string]retrytest.CorpusEntry{}
	for _, e := range retrytest.Corpus(t) {
		byID[e.ID] = e
	}
	for id, want := range map[string]struct {
		phase Phase
		kind  NetKind
		frame bool
	}{
		"E13": {InStreamBeforeDelta, NetUnknown, true},
		"E15": {InStreamAfterDelta, NetUnknown, true},
		"E19": {InStreamAfterDelta, NetCut, false},
		"E24": {InStreamBeforeDelta, NetUnknown, true},
		"E28": {InStreamAfterDelta, NetUnknown, true},
		"E54": {InStreamBeforeDelta, NetTimeoutFirstDelta, false},
		"E63": {InStreamBeforeDelta, NetEmpty, false},
	} {
		e, ok := byID[id]
		if !ok {
			t.Errorf("%s missing from the corpus", id)
			continue
		}
		raw, _ := e.Raw()
		f, err := ParseRaw([]byte(raw))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if f.Phase != want.phase || f.Kind != want.kind || (len(f.Body) > 0) != want.frame {
			t.Errorf("%s: phase %d kind %d frame %q; want phase %d kind %d frame %v",
				id, f.Phase, f.Kind, f.Body, want.phase, want.kind, want.frame)
		}
	}
}

// corpusBar is what the classifier must reach on one set of the provider corpus: a share of
// entries with the expected retryability, and a share with the expected class.
type corpusBar struct{ retryable, class float64 }

// Every entry's retryability must agree, and 95 % of classes, on both sets. The held-out fifth
// was measured once, untouched, after the rules were designed from the rest: 30 of 32
// retryable, 29 of 32 classes. Its three misses then taught two general signals (window words
// inside identifiers, gRPC's Unavailable as a backend that is down), so it is no longer held
// out: a fresh one is needed to measure the next change honestly.
var (
	restBar    = corpusBar{retryable: 1, class: 0.95}
	holdoutBar = restBar
)

func TestClassifyProviderCorpus(t *testing.T) {
	measureCorpus(t, retrytest.ProviderCorpus(t), retrytest.Holdout(t), holdoutBar, restBar)
}

// The second round of the corpus: its tuning part must be classified as the first is, and its
// holdout, set aside before anyone read it, measures errors never seen. Only counts of the
// holdout are printed, so that it tunes nothing. Measured once when the round was added:
// before the changes it came with, retryable 25/31 and class 21/31 (the rules as they were);
// after the general rules written from the SPEC and the tuning part, 28/31 and 23/31; after the
// third round's rules (written from the third corpus alone), 29/31 and 24/31. The bar keeps that.
var (
	secondBar        = corpusBar{retryable: 1, class: 1}
	secondHoldoutBar = corpusBar{retryable: 29.0 / 31, class: 24.0 / 31}
)

func TestClassifySecondCorpus(t *testing.T) {
	measureCorpus(t, retrytest.SecondCorpus(t), retrytest.SecondHoldout(t), secondHoldoutBar, secondBar)
}

// measureCorpus classifies every entry and holds the held-out ones and the rest to their bars; a
// nil holdout holds every entry to restBar.
// Held-out misses are only counted, never shown, so that they tune nothing.
func measureCorpus(t *testing.T, entries []retrytest.CorpusEntry, holdout map[string]bool, holdoutBar, restBar corpusBar) {
	t.Helper()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type tally struct {
		n, retry, class int
		misses          []string
	}
	sets := map[bool]*tally{true: {}, false: {}}
	for _, e := range entries {
		c := Classify(corpusFailure(t, e, now))
		s := sets[holdout[e.ID]]
		s.n++
		okRetry, okClass := c.Retryable == e.Retryable, c.Class == chat.Class(e.ExpectedClass)
		if okRetry {
			s.retry++
		}
		if okClass {
			s.class++
		}
		switch {
		case okRetry && okClass:
		case holdout[e.ID]:
		default:
			s.misses = append(s.misses, fmt.Sprintf("%s %s: got %s retryable=%v by %s, want %s retryable=%v (%q)",
				e.ID, e.Provider, c.Class, c.Retryable, c.Rule, e.ExpectedClass, e.Retryable, c.Message))
		}
		if c.Rule == "" || c.Label != classLabel(c) || c.Message == "" {
			t.Errorf("%s: rule %q, label %q, message %q: want a rule, the class's label and a message", e.ID, c.Rule, c.Label, c.Message)
		}
	}
	for _, set := range []struct {
		name    string
		holdout bool
		bar     corpusBar
	}{{"held-out", true, holdoutBar}, {"rest", false, restBar}} {
		s := sets[set.holdout]
		if set.holdout && holdout == nil {
			continue // a corpus without a held-out part
		}
		t.Logf("%s: retryability %d/%d, class %d/%d", set.name, s.retry, s.n, s.class, s.n)
		for _, m := range s.misses {
			t.Logf("  %s", m)
		}
		if s.n == 0 || float64(s.retry) < set.bar.retryable*float64(s.n)-1e-9 || float64(s.class) < set.bar.class*float64(s.n)-1e-9 {
			t.Errorf("%s: retryability %d/%d, class %d/%d, below the bar of %.1f%% and %.1f%%",
				set.name, s.retry, s.n, s.class, s.n, set.bar.retryable*100, set.bar.class*100)
		}
	}
}

// The third round, gathered apart from the rules and measured before any was written for it:
// retryable 30/37, class 11/37. The rules it taught are general (permission words, gateways'
// own words for an upstream that did not answer, tools a server cannot take, overflow and
// refusals in other words); the bar is every retryability and 95 % of classes.
var thirdBar = corpusBar{retryable: 1, class: 0.95}

func TestClassifyThirdCorpus(t *testing.T) {
	measureCorpus(t, retrytest.ThirdCorpus(t), nil, corpusBar{}, thirdBar)
}
