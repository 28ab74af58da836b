package chat

import (
	"encoding/json"
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

// C1 controls are escaped as C0 ones are, so a terminal shows them as text; the string a
// script decodes is the same, and printable text around them (é is 0xC3 0xA9) is kept.
func TestWriteJSONEscapesC1Controls(t *testing.T) {
	text := "a\u009b2J\u0085é\u00a0\u009dz\x1b"
	var b strings.Builder
	if err := WriteJSON(&b, map[string]string{"text": text}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"text\": \"a\\u009b2J\\u0085é\u00a0\\u009dz\\u001b\"\n}\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back["text"] != text {
		t.Errorf("decodes to %q, %v", back["text"], err)
	}
}
