package retrytest

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// CorpusPath is where the shared corpus of real provider error responses lives, seen from a
// package directory of this repository: beside the repository, in shared/errors.
const CorpusPath = "../../shared/errors/corpus.json"

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

// Corpus reads the corpus, skipping the test when it is not beside the repository.
func Corpus(t testing.TB) []CorpusEntry {
	t.Helper()
	data, err := os.ReadFile(CorpusPath)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("error corpus not found at %s (it lives beside the repository, in shared/errors)", CorpusPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	var entries []CorpusEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("corpus: %v", err)
	}
	return entries
}
