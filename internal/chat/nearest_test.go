package chat

import "testing"

// A mistyped name is matched to the one meant; a word that only resembles one is not.
func TestNearest(t *testing.T) {
	commands := []string{"classify", "demo-server", "export", "help", "roles", "search", "sessions", "version"}
	for _, c := range []struct {
		word, want string
	}{
		{"serach", "search"},    // neighbours swapped
		{"sesions", "sessions"}, // one left out
		{"sesion", "sessions"},  // two, in a long name
		{"exprot", "export"},
		{"verison", "version"},
		{"halp", "help"},
		{"classfy", "classify"},
		{"rolse", "roles"},
		// Words of a question, not typos.
		{"what", ""},
		{"hello", ""}, // two edits from help: too many for a name of four
		{"research", ""},
		{"notes", ""},
		{"hi", ""},
		{"how", ""},
		{"sea", ""}, // shorter than four
		{"", ""},
	} {
		got, ok := Nearest(c.word, commands)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Nearest(%q) = %q, %v; want %q", c.word, got, ok, c.want)
		}
	}
	keys := []string{"api_key_env", "base_url", "max_tokens", "model", "reasoning_effort", "temperature"}
	for word, want := range map[string]string{"modle": "model", "base-url": "base_url", "max_token": "max_tokens",
		"temprature": "temperature", "reasoning_efort": "reasoning_effort"} {
		if got, ok := Nearest(word, keys); !ok || got != want {
			t.Errorf("Nearest(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
}
