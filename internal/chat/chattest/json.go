package chattest

import (
	"encoding/json"
	"testing"
)

// DecodeJSON reads s, what a run wrote as JSON, into a T, failing the test with s when it is
// not JSON.
func DecodeJSON[T any](t testing.TB, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return v
}
