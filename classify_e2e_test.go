package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/agent/demo"
	"parley/agent/demo/demotest"
	"parley/retry/retrytest"
)

// Every entry of the shared corpus, replayed as raw text (an HTTP response, or the stream
// for in-stream errors), is classified by `parley classify` as it should be.
func TestClassifyCommandOnTheCorpus(t *testing.T) {
	data, err := os.ReadFile("../shared/errors/corpus.json")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("the shared error corpus is not beside the repository")
	}
	var entries []retrytest.CorpusEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	u := newUser(t)
	inStream := 0
	for _, e := range entries {
		raw, ok := e.Raw()
		if !ok {
			continue
		}
		if e.Phase == "in_stream" {
			inStream++
		}
		path := filepath.Join(t.TempDir(), e.ID+".txt")
		os.WriteFile(path, []byte(raw), 0o600)
		r := u.run("classify", path, "--json")
		var got struct {
			Retryable bool   `json:"retryable"`
			Class     string `json:"retry_class"`
			Rule      string `json:"rule"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
			t.Errorf("%s: exit %d, %v: %s%s", e.ID, r.code, err, r.stdout, r.stderr)
			continue
		}
		if got.Class != e.ExpectedClass || got.Retryable != e.Retryable || got.Rule == "" {
			t.Errorf("%s (%s): %s retryable=%v by %q, want %s retryable=%v", e.ID, e.Phase, got.Class, got.Retryable, got.Rule, e.ExpectedClass, e.Retryable)
		}
	}
	if inStream == 0 {
		t.Error("no in-stream entry was replayed")
	}
}

// A [[classify]] rule in config.toml decides before the built-in rules: the run is stored
// with it, and print mode says which rule decided; a malformed rule stops parley, named.
func TestClassifyRuleInConfig(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	warming := demo.Fault{Status: 500, Body: `{"error":{"message":"Model is warming up, please retry shortly","type":"server_error"}}`}
	srv.Push(warming, warming, warming)
	u := newUser(t)
	cfg := "[[classify]]\nname = \"warmup\"\nstatus = 500\nmessage = \"(?i)warming up\"\nclass = \"overloaded\"\nwait = \"45s\"\n"
	os.WriteFile(filepath.Join(u.home, "config.toml"), []byte(cfg), 0o600)
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--json")
	var out struct {
		Retry struct {
			Class string  `json:"retry_class"`
			Rule  string  `json:"rule"`
			Until *string `json:"retry_after_until"`
		} `json:"retry"`
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(r.stdout), &out)
	// Built in, a 500 is a server error retried at once; the rule makes it an overload with a
	// 45 s wait, which Tier 1 hands to Tier 2 without a second request.
	if r.code != 3 || out.Retry.Class != "overloaded" || out.Retry.Rule != "user:warmup" || out.Retry.Until == nil || srv.Requests() != 1 {
		t.Fatalf("exit %d after %d requests: %+v %s", r.code, srv.Requests(), out, r.stderr)
	}
	if exp := u.run("export", out.SessionID, "--markdown"); !strings.Contains(exp.stdout, "rule user:warmup") {
		t.Errorf("export does not name the rule:\n%s", exp.stdout)
	}

	bad := newUser(t)
	for _, c := range []struct{ cfg, want string }{
		{"[[classify]]\nname = \"x\"\nstatus = 429\nclass = \"slow\"\n", `classify rule "x": class "slow" is not one a rule can set`},
		{"[[classify]]\nname = \"y\"\nmessage = \"(unclosed\"\nclass = \"overloaded\"\n", `classify rule "y": message "(unclosed" is not a regular expression`},
		{"[[classify]]\nclass = \"overloaded\"\n", "[[classify]] number 1"},
	} {
		os.WriteFile(filepath.Join(bad.home, "config.toml"), []byte(c.cfg), 0o600)
		r := bad.run("-p", "hello", "--base-url", srv.URL(), "--model", "m")
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", r.code, r.stderr, c.want)
		}
	}
}
