package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// hostile is what a name or a text may hold that must never reach a terminal as it is: a
// title set (OSC 0), a clipboard write (OSC 52), the screen cleared (CSI 2J), a C1 CSI as a
// code point and a DCS, then the word that names it.
const hostile = "\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u009b31m\x1bPqdcs\x1b\\evil"

// hostileByte is a C1 CSI as a lone byte, which some terminals read as one.
const hostileByte = "\x9b2Jbyte"

// Every command and error path that writes a name the user typed, a server's model ids, a
// pasted failure, a reply or a stored message, on a terminal and (stderr) to a pipe: none of
// the hostile controls reaches the bytes written, and the output still names the thing.
func TestEveryExitToATerminalIsNeutral(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	models := demotest.Start(t, demo.Options{Model: hostile + "-a", MoreModels: []string{"b", "c"}})
	srv := demotest.Start(t, demo.Options{}, demo.Fault{Stream: demotest.HostileStream})
	stored := decode[printJSON](t, u.run("-p", hostile+" "+hostileByte, "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	if stored.SessionID == "" {
		t.Fatal("no session stored")
	}

	dir := t.TempDir()
	missing := filepath.Join(dir, hostile+".txt")
	missingByte := filepath.Join(dir, hostileByte+".txt")
	binary := filepath.Join(dir, "bin"+hostile)
	if err := os.WriteFile(binary, []byte("\x00\x01\x02\xff"), 0o600); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": hostile + " That model is currently overloaded", "type": "server_error", "param": nil, "code": nil}})
	failure := "HTTP/1.1 503 Service Unavailable\nContent-Type: application/json\n\n" + string(body)
	pasted := filepath.Join(dir, "pasted.txt")
	os.WriteFile(pasted, []byte(failure), 0o600)
	flagName, _, _ := strings.Cut(hostile, "=")
	plainFailure := "HTTP/1.1 502 Bad Gateway\nContent-Type: text/plain\n\n" + hostile + " upstream " + hostileByte
	replies := hostileReplies(t)
	roles := newUser(t)
	roles.writeConfig("[roles.\"\\u001b]0;pwned\\u0007evil\"]\nsystem = \"\\u001b]52;c;cm0gLXJmIH4=\\u0007be terse\"\n")

	cases := []struct {
		name  string
		stdin string
		args  []string
		// names is what the output must show of the hostile thing.
		names string
		// styled is set where parley draws with sequences of its own (bold, dim, rendered
		// markdown, a redrawn line): those are let through, no other.
		styled bool
		// as runs the case as another user, with a config of their own.
		as *user
	}{
		{"models listed", "", []string{"-p", "hi", "--base-url", models.URL()}, strconv.Quote(hostile + "-a"), false, nil},
		{"classify from stdin", failure, []string{"classify"}, "evil That model is currently overloaded", false, nil},
		{"classify --json", failure, []string{"classify", "--json"}, `\u009b31m\u001bPqdcs`, false, nil},
		{"classify a text body", plainFailure, []string{"classify"}, "evil upstream", false, nil},
		{"classify a file", "", []string{"classify", pasted}, "evil That model", false, nil},
		{"classify a missing file", "", []string{"classify", missing}, strconv.Quote(missing), false, nil},
		{"-f missing", "", []string{"-p", "hi", "--base-url", srv.URL(), "--model", "m", "-f", missing}, strconv.Quote(missing), false, nil},
		{"-f missing, C1 as a byte", "", []string{"-p", "hi", "--base-url", srv.URL(), "--model", "m", "-f", missingByte}, strconv.Quote(missingByte), false, nil},
		{"-f binary", "", []string{"-p", "hi", "--base-url", srv.URL(), "--model", "m", "-f", binary}, strconv.Quote(binary), false, nil},
		{"profile", "", []string{"-p", "hi", "--profile", hostile}, "define [profiles." + strconv.Quote(hostile) + "]", false, nil},
		{"role", "", []string{"-p", "hi", "--base-url", srv.URL(), "--model", "m", "--role", hostile}, "or [roles." + strconv.Quote(hostile) + "]", false, nil},
		// The flag package names a flag up to its "=".
		{"unknown flag", "", []string{"-p", "hi", "--" + hostile}, strconv.Quote("-" + flagName), false, nil},
		{"unknown one-dash flag", "", []string{"-" + hostile}, strconv.Quote("-" + flagName), false, nil},
		{"flag value", "", []string{"-p", "hi", "--timeout", hostile}, strconv.Quote(hostile), false, nil},
		{"model", "", []string{"-p", "hi", "--base-url", srv.URL(), "--model", hostile, "--raw"}, "", false, nil},
		{"session", "", []string{"-p", "hi", "--session", hostile}, strconv.Quote(hostile), false, nil},
		{"export of an unknown session", "", []string{"export", hostile}, strconv.Quote(hostile), false, nil},
		{"fork of an unknown session", "", []string{"fork", hostile}, strconv.Quote(hostile), false, nil},
		{"sessions rm", "", []string{"sessions", "rm", hostile}, strconv.Quote(hostile), false, nil},
		{"sessions title", "", []string{"sessions", "title", stored.SessionID, hostile}, "evil", false, nil},
		{"sessions", "", []string{"sessions"}, "evil", false, nil},
		{"export --json", "", []string{"export", stored.SessionID, "--json"}, `\u009b31m`, false, nil},
		{"export --markdown", "", []string{"export", stored.SessionID, "--markdown"}, "evil", false, nil},
		{"search", "", []string{"search", "evil"}, "evil", true, nil},
		{"roles", "", []string{"roles"}, strconv.Quote("\x1b]0;pwned\aevil") + " ", false, roles},
		{"a reply, raw", "", []string{"-p", "hi", "--base-url", replies, "--model", "m", "--raw"}, "safe text and red then done", false, nil},
		{"a reply, rendered", "", []string{"-p", "hi", "--base-url", replies, "--model", "m"}, "safe", true, nil},
		{"a reply and its thinking", "", []string{"-p", "hi", "--base-url", replies, "--model", "m", "--raw", "--show-reasoning"}, "weighing evil", true, nil},
		{"a reply as JSON", "", []string{"-p", "hi", "--base-url", replies, "--model", "m", "--json"}, `\u009b31m`, false, nil},
	}
	for _, c := range cases {
		as := cmp.Or(c.as, u)
		shown := as.runWith(func(ios *IO) { ios.InTerminal, ios.OutTerminal, ios.ErrTerminal = c.stdin == "", true, true }, c.stdin, c.args...)
		check := checkNeutral
		if c.styled {
			check = checkStyled
		}
		check(t, c.name+": stdout on a terminal", shown.stdout)
		check(t, c.name+": stderr on a terminal", shown.stderr)
		if !strings.Contains(shown.stdout+shown.stderr, c.names) {
			t.Errorf("%s: the output does not name %s: %q %q", c.name, c.names, shown.stdout, shown.stderr)
		}
		piped := as.pipe(c.stdin, c.args...)
		checkNeutral(t, c.name+": stderr to a pipe", piped.stderr)
	}

	// export --json on a terminal is JSON still, every control escaped: it reads back as stored.
	e := decode[exportJSON](t, u.onTerminal("export", stored.SessionID, "--json").stdout)
	if len(e.Messages) < 2 || e.Messages[0].Content != hostile+" "+strings.ToValidUTF8(hostileByte, "\uFFFD") {
		t.Errorf("export --json on a terminal reads back as %+v", e.Messages)
	}
	// To a pipe the reply is the model's, byte for byte.
	if piped := u.run("export", stored.SessionID, "--markdown"); !strings.Contains(piped.stdout, "\x1b]52;c;") {
		t.Errorf("to a pipe the stored text changed: %q", piped.stdout)
	}
}

// hostileReplies starts a server on 127.0.0.1 whose every reply thinks and answers with
// HostileStream's sequences, and returns its base URL.
func hostileReplies(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		thought, _ := json.Marshal("weighing " + hostile + "\n")
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":%s}}]}\n\n", thought)
		_, answer, _ := strings.Cut(demotest.HostileStream, "\n\n")
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// checkStyled is checkNeutral for output parley styles: its own SGR and erase-line
// sequences and the carriage return of a redrawn line are let through, nothing else.
func checkStyled(t *testing.T, what, out string) {
	t.Helper()
	checkNeutral(t, what, parleysOwn.ReplaceAllString(out, ""))
}

// parleysOwn are the sequences parley draws with outside the chat screen.
var parleysOwn = regexp.MustCompile(`\x1b\[[0-9;]*[mK]|\r`)

// checkNeutral fails the test when out holds ESC, BEL, a C1 control (as a code point or a
// lone byte) or any other C0 control but \n and \t.
func checkNeutral(t *testing.T, what, out string) {
	t.Helper()
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			t.Errorf("%s: a lone byte %#x at %d: %q", what, out[i], i, out)
			return
		case (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f):
			t.Errorf("%s: control %U at %d: %q", what, r, i, out)
			return
		}
		i += size
	}
}
