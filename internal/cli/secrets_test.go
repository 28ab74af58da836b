package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// Secrets never leave: a password in the base URL, a key in its query, and a key a server echoes
// back in its error appear nowhere parley writes: not stdout, stderr, the history, the log or
// either export.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const password, queryKey, apiKey = "PASSWORD-hunter2", "SECRET-q-77", "sk-live-0123456789abcdef"
	srv := demotest.Start(t, demo.Options{})
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Invalid API key provided: %s. You can find your API key at https://example.test.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			r.Header.Get("Authorization"))
	}))
	t.Cleanup(echo.Close)

	u := newUser(t, "MY_KEY="+apiKey)
	var seen strings.Builder
	keep := func(r result) result {
		seen.WriteString(r.stdout + r.stderr)
		return r
	}
	withPassword := strings.Replace(srv.URL(), "http://", "http://me:"+password+"@", 1)
	ok := keep(u.run("-p", "hello", "--base-url", withPassword, "--model", "m", "--json"))
	if ok.code != 0 {
		t.Fatalf("with a password in the URL: exit %d %s", ok.code, ok.stderr)
	}
	if r := keep(u.run("-p", "hi", "--base-url", srv.URL()+"?key="+queryKey, "--model", "m")); r.code != 2 {
		t.Fatalf("a query in the base URL: exit %d, want 2", r.code)
	}
	bad := keep(u.run("-p", "hi", "--base-url", echo.URL+"/v1", "--model", "m", "--api-key-env", "MY_KEY", "--json"))
	if bad.code != 1 || !strings.Contains(bad.stderr, "Invalid API key provided: Bearer [redacted]") {
		t.Fatalf("a server echoing the key: exit %d, stderr %q", bad.code, bad.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(keep(u.run("sessions")).stdout), "\n") {
		id := strings.Fields(line)[0]
		keep(u.run("export", id, "--json"))
		keep(u.run("export", id, "--markdown"))
	}
	filepath.Walk(u.home, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			seen.Write(b)
		}
		return nil
	})
	for _, secret := range []string{password, queryKey, apiKey} {
		if strings.Contains(seen.String(), secret) {
			t.Errorf("%s is in what parley wrote", secret)
		}
	}
	if !strings.Contains(seen.String(), "[redacted]") {
		t.Error("nothing was redacted: the test saw none of the secrets' places")
	}
}
