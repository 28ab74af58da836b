package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// The daily driver from the command line: piped text and attached files, the model asked of
// the endpoint, and a profile's sampling settings.

func TestPipedTextFollowsThePrompt(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	if r := u.pipe("ZEBRA", "-p", "say the word", "--base-url", srv.URL(), "--model", "m"); r.code != 0 || r.stdout == "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := srv.Received()[0].Messages; len(got) != 1 || got[0].Content != "say the word\n\nZEBRA" {
		t.Fatalf("sent %+v", got)
	}
	// A question in place of -p does the same with a pipe: print mode, not the chat screen.
	if r := u.pipe("a pipe's text\n", "--base-url", srv.URL(), "--model", "m", "what", "is", "this?"); r.code != 0 || r.stdout == "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := srv.Received()[1].Messages[0].Content; got != "what is this?\n\na pipe's text" {
		t.Fatalf("sent %q", got)
	}
}

func TestAttachedFilesAndRefusals(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.writeHome(map[string]string{"notes.md": "# Notes\nremember the milk\n", "big.txt": strings.Repeat("x", 3000),
		"config.toml": "max_attachment_bytes = 2048\n"})
	notes := filepath.Join(u.home, "notes.md")
	r := u.run("-p", "summarise", "-f", notes, "--base-url", srv.URL(), "--model", "m", "--json")
	out := decode[printJSON](t, r.stdout)
	want := "summarise\n\n" + notes + "\n```md\n# Notes\nremember the milk\n```"
	if got := srv.Received()[0].Messages[0].Content; r.code != 0 || got != want {
		t.Fatalf("exit %d, sent %q, want %q", r.code, got, want)
	}
	e := decode[exportJSON](t, u.run("export", out.SessionID, "--json").stdout)
	if e.Messages[0].Content != want {
		t.Fatalf("stored %q: the attachment is part of the operator message", e.Messages[0].Content)
	}

	png := filepath.Join(u.home, "pic.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{png, "it is binary, not text"},
		{filepath.Join(u.home, "gone.txt"), "no such file"},
		{filepath.Join(u.home, "big.txt"), "2.9 KiB is over the 2.0 KiB limit; raise max_attachment_bytes"},
	} {
		r := u.run("-p", "look", "-f", notes, "--file", c.path, "--base-url", srv.URL(), "--model", "m")
		line := strings.TrimSpace(r.stderr)
		if r.code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "cannot attach "+c.path+": "+c.says) {
			t.Errorf("%s: exit %d, stderr %q", c.path, r.code, r.stderr)
		}
	}
	if r := u.pipe("\x00\x01binary", "-p", "look", "--base-url", srv.URL(), "--model", "m"); r.code != 2 || !strings.Contains(r.stderr, "cannot attach stdin: it is binary") {
		t.Errorf("binary stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	// A prompt that is all of stdin is held to the same limit as piped text.
	if r := u.pipe(strings.Repeat("y", 3000), "--base-url", srv.URL(), "--model", "m"); r.code != 2 ||
		!strings.Contains(r.stderr, "cannot attach stdin: 2.9 KiB is over the 2.0 KiB limit") {
		t.Errorf("a prompt of 3000 bytes on stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	if srv.Requests() != 1 {
		t.Fatalf("%d requests: a refused attachment must send nothing", srv.Requests())
	}
	if s := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout); len(s) != 1 {
		t.Fatalf("sessions %+v: a refused attachment must store nothing", s)
	}
}

func TestTheModelIsAskedOfTheEndpoint(t *testing.T) {
	t.Parallel()
	one := demotest.Start(t, demo.Options{Model: "only-model"})
	u := newUser(t)
	r := u.run("-p", "hello", "--base-url", one.URL(), "--json")
	var body struct{ Model string }
	if r.code != 0 || one.Requests() != 1 || json.Unmarshal(one.Received()[0].Body, &body) != nil || body.Model != "only-model" {
		t.Fatalf("exit %d, %d requests, model %q; stderr %q", r.code, one.Requests(), body.Model, r.stderr)
	}
	several := demotest.Start(t, demo.Options{Model: "b-model", MoreModels: []string{"a-model", "c-model"}})
	r = u.run("-p", "hello", "--base-url", several.URL())
	if want := "serves 3 models (a-model, b-model, c-model): pass --model NAME"; r.code != 2 || !strings.Contains(r.stderr, want) || several.Requests() != 0 {
		t.Fatalf("several models: exit %d, %d requests, stderr %q", r.code, several.Requests(), r.stderr)
	}
	r = u.run("-p", "hello", "--base-url", "http://127.0.0.1:9/v1")
	if r.code != 2 || !strings.Contains(r.stderr, "no model named, and asking the endpoint failed") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("unreachable: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestAProfilesSamplingReachesTheRequest(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.writeConfig(fmt.Sprintf("[profiles.warm]\nbase_url = %q\nmodel = \"m\"\ntemperature = 0.7\ntop_p = 0.9\n"+
		"[profiles.cold]\nbase_url = %q\nmodel = \"m\"\ntemperature = 0.0\n", srv.URL(), srv.URL()))
	for _, p := range []string{"warm", "cold", ""} {
		args := []string{"-p", "hi", "--profile", p}
		if p == "" {
			args = []string{"-p", "hi", "--base-url", srv.URL(), "--model", "m"}
		}
		if r := u.run(args...); r.code != 0 {
			t.Fatalf("%s: exit %d %s", p, r.code, r.stderr)
		}
	}
	var sent []map[string]any
	for _, req := range srv.Received() {
		var body map[string]any
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, body)
	}
	if sent[0]["temperature"] != 0.7 || sent[0]["top_p"] != 0.9 {
		t.Errorf("warm sent temperature %v, top_p %v", sent[0]["temperature"], sent[0]["top_p"])
	}
	if temp, ok := sent[1]["temperature"].(float64); !ok || temp > 1e-6 {
		t.Errorf("cold sent temperature %v, want 0 (present)", sent[1]["temperature"])
	}
	if _, ok := sent[2]["temperature"]; ok {
		t.Errorf("no profile sent temperature %v, want none", sent[2]["temperature"])
	}
}
