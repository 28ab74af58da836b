package chat

import (
	"strings"
	"testing"
)

// A reply's text reaches a script as the model wrote it: <, > and & are not escaped.
func TestWriteJSONKeepsTheText(t *testing.T) {
	var b strings.Builder
	if err := WriteJSON(&b, map[string]string{"text": "if a < b && b > c"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"text\": \"if a < b && b > c\"\n}\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}
