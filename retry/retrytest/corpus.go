package retrytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// CorpusEntry is one real provider error response, with how parley should classify it.
type CorpusEntry struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
	Scenario string `json:"scenario"`
	// Phase is "status" (an HTTP error), "in_stream" (a 200 stream whose Body is the raw stream
	// text) or "connect" (no response; Body is the client's error text).
	Phase         string            `json:"phase"`
	Status        int               `json:"status"`
	Headers       map[string]string `json:"headers"`
	Body          string            `json:"body"`
	ExpectedClass string            `json:"expected_class"`
	Retryable     bool              `json:"retryable"`
}

// Corpus reads the shared corpus of real provider error responses, as vendored into
// retry/testdata/shared-corpus.json (a copy of shared/errors/corpus.json, which lives beside
// the repository). A missing file fails the test: a fresh clone has it.
func Corpus(t testing.TB) []CorpusEntry {
	t.Helper()
	return read(t, "shared-corpus.json")
}

// testdata is retry/testdata, found from this source file so that any package's tests can
// read it.
func testdata(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("retrytest: cannot locate its own source")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// ProviderCorpus reads the repository's own corpus (retry/testdata/corpus.json, ids P001…),
// whose entries have the shape of the shared corpus.
func ProviderCorpus(t testing.TB) []CorpusEntry {
	t.Helper()
	return read(t, "corpus.json")
}

// SecondCorpus reads the corpus's second round (retry/testdata/corpus2.json, ids P162…),
// gathered from sources the first lacked, in the same shape.
func SecondCorpus(t testing.TB) []CorpusEntry {
	t.Helper()
	return read(t, "corpus2.json")
}

// ThirdCorpus reads the corpus's third round (retry/testdata/corpus3.json, ids P243…), errors
// of kinds the first two lacked (permission and entitlement blocks, gateways' own words for an
// upstream that failed, parameters a local server cannot take, overflow and refusals worded
// otherwise), in the same shape.
func ThirdCorpus(t testing.TB) []CorpusEntry {
	t.Helper()
	return read(t, "corpus3.json")
}

// Holdout returns the ids of ProviderCorpus set aside before the classifier was tuned
// (retry/testdata/holdout.json): agreement on them is reported apart from the rest.
func Holdout(t testing.TB) map[string]bool { return holdout(t, "holdout.json") }

// SecondHoldout returns the ids of SecondCorpus set aside when it was gathered, before anyone
// read them to tune (retry/testdata/holdout2.json): the measure of errors never seen.
func SecondHoldout(t testing.TB) map[string]bool { return holdout(t, "holdout2.json") }

func holdout(t testing.TB, name string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata(t), name))
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ IDs []string }
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatalf("holdout.json: %v", err)
	}
	ids := make(map[string]bool, len(h.IDs))
	for _, id := range h.IDs {
		ids[id] = true
	}
	return ids
}

// read reads the corpus file name of retry/testdata.
func read(t testing.TB, name string) []CorpusEntry {
	t.Helper()
	path := filepath.Join(testdata(t), name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []CorpusEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return entries
}

// Raw writes an entry out as the text retry.ParseRaw reads: a status line, the headers, a
// blank line and the body, the body of an in_stream entry after a 200. A connect entry had no
// response; ok is false.
func (e CorpusEntry) Raw() (raw string, ok bool) {
	status := e.Status
	switch e.Phase {
	case "connect":
		return "", false
	case "in_stream":
		status = http.StatusOK
	}
	s := fmt.Sprintf("HTTP/1.1 %d %s\n", status, http.StatusText(status))
	for k, v := range e.Headers {
		s += k + ": " + v + "\n"
	}
	return s + "\n" + e.Body, true
}
