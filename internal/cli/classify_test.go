package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"parley/retry/retrytest"
)

// Every entry of the shared corpus, replayed as raw text (an HTTP response, or the stream
// for in-stream errors), is classified by `parley classify` as it should be.
func TestClassifyCommandOnTheCorpus(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	inStream := 0
	for _, e := range retrytest.Corpus(t) {
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
