package chat

import "testing"

func TestFinishNote(t *testing.T) {
	for _, c := range []struct{ reason, answer, want string }{
		{"stop", "All done.", ""},
		{"", "", ""},
		{"length", "Half an ans", "stopped at the token limit"},
		{"length", " \n", "stopped at the token limit while thinking — no answer"},
	} {
		if got := FinishNote(c.reason, c.answer); got != c.want {
			t.Errorf("FinishNote(%q, %q) = %q, want %q", c.reason, c.answer, got, c.want)
		}
	}
}

func TestThoughtOut(t *testing.T) {
	for _, c := range []struct {
		reason, answer string
		maxTokens      int
		profile, want  string
	}{
		{"length", "", 64, "local", "stopped at the token limit while thinking — no answer: raise max_tokens (64) in [profiles.local] of config.toml, or lower its reasoning_effort"},
		{"length", "\n", 0, "", "stopped at the token limit while thinking — no answer: set max_tokens in a profile of config.toml above the endpoint's own limit, or lower its reasoning_effort"},
		{"length", "Half an ans", 64, "local", ""},
		{"stop", "", 64, "local", ""},
	} {
		got, ok := ThoughtOut(c.reason, c.answer, c.maxTokens, c.profile)
		if ok != (c.want != "") || got.Message != c.want || ok && (got.Retryable || got.Class != EmptyResponse) {
			t.Errorf("ThoughtOut(%q, %q, %d, %q) = %+v, %v; want %q", c.reason, c.answer, c.maxTokens, c.profile, got, ok, c.want)
		}
	}
}
