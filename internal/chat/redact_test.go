package chat

import "testing"

func TestRedactURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080/v1":                                     "http://127.0.0.1:8080/v1",
		"https://u:PASSWORD@api.example.com/v1":                        "https://[redacted]@api.example.com/v1",
		"https://api.example.com/v1?key=SECRET&api-version=2024-10-21": "https://api.example.com/v1?api-version=[redacted]&key=[redacted]",
		"https://only-user@api.example.com/v1":                         "https://[redacted]@api.example.com/v1",
		"://bad url u:pw@host":                                         "://[redacted]@host",
		"http://u:p w@host/v1":                                         "http://[redacted]@host/v1",
	} {
		if got := RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	got := Redact("Invalid API key provided: Bearer sk-test-1234567890. X-Org: org-42abc", []string{"sk-test-1234567890", "org-42abc", "ab", ""})
	if want := "Invalid API key provided: Bearer [redacted]. X-Org: [redacted]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
