package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/testenv"
)

// The real Portkey gateway in front of two upstreams on one URL and one model, told apart by
// x-portkey-custom-host: one upstream's 429 with a 50-minute reset holds only its own route, and
// the hold names it; header values that are no secrets ("openai", "true") are left in what the
// servers say, and the key is nowhere. The gateway is scripts/portkey's (pinned, installed by
// .ci/run with npm ci), or the build/start-server.js PARLEY_PORTKEY names.
func TestPortkeyHoldsOnlyTheRouteThatWasLimited(t *testing.T) {
	t.Parallel()
	node := testenv.Tool(t, "node", "apt-get install nodejs npm, then npm ci --prefix scripts/portkey")
	start := os.Getenv("PARLEY_PORTKEY")
	if start == "" {
		start = testenv.NodeModule(t, "scripts/portkey", "@portkey-ai/gateway", "build/start-server.js")
	}
	gateway := startPortkey(t, node, start)

	const key = "sk-portkey-e2e-0123456789abcdef"
	var limitedSent, healthySent, retriedSent atomic.Int32
	limited := upstream(t, &limitedSent, func(w http.ResponseWriter, r *http.Request) {
		sent := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "3000")
		w.WriteHeader(http.StatusTooManyRequests)
		// OpenAI's words, with the key echoed and the words "openai" and "true"
		fmt.Fprintf(w, `{"error":{"message":"Rate limit reached for provider openai (stream true) on key %s. Please try again in 50m0s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, sent)
	})
	healthy := upstream(t, &healthySent, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, word := range []string{"Hello", " from", " B."} {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", word)
		}
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	})
	overloaded := upstream(t, &retriedSent, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}`)
	})

	u := newUser(t, "PORTKEY_KEY="+key)
	profile := func(name, host, more string) string {
		return fmt.Sprintf("[profiles.%s]\nbase_url = %q\nmodel = \"gpt-4o-mini\"\napi_key_env = \"PORTKEY_KEY\"\n"+
			"headers = { \"x-portkey-provider\" = \"openai\", \"x-portkey-custom-host\" = %q, \"x-portkey-strict-open-ai-compliance\" = \"true\"%s }\n\n",
			name, gateway+"/v1", host+"/v1", more)
	}
	config := "profile = \"a\"\n\n" + profile("a", limited, "") + profile("b", healthy, "") +
		profile("c", overloaded, `, "x-portkey-config" = '{"retry":{"attempts":3}}'`)
	if err := os.WriteFile(filepath.Join(u.home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var seen []string // every stream, for the key

	first := u.run("-p", "hi", "--profile", "a")
	seen = append(seen, first.stdout, first.stderr)
	if first.code != 3 || limitedSent.Load() != 1 || !strings.Contains(first.stderr, "Rate limited — ") ||
		!strings.Contains(first.stderr, "provider openai (stream true) on key [redacted]") {
		t.Fatalf("A: exit %d after %d requests, stderr %q; want exit 3 after one, the server's words with only the key redacted",
			first.code, limitedSent.Load(), first.stderr)
	}
	other := u.run("-p", "hi", "--profile", "b")
	seen = append(seen, other.stdout, other.stderr)
	if other.code != 0 || other.stdout != "Hello from B.\n" || healthySent.Load() != 1 {
		t.Fatalf("B behind the same URL and model: exit %d, stdout %q, stderr %q, %d requests; want its reply", other.code,
			other.stdout, other.stderr, healthySent.Load())
	}
	held := u.run("-p", "hi", "--profile", "a", "--json")
	seen = append(seen, held.stdout, held.stderr)
	got := decode[struct {
		Attempts int    `json:"attempts"`
		Error    string `json:"error"`
	}](t, held.stdout)
	route := "(route: " + strings.TrimPrefix(gateway, "http://") + " … custom-host " + strings.TrimPrefix(limited, "http://") + " provider openai)"
	if held.code != 3 || limitedSent.Load() != 1 || got.Attempts != 0 || !strings.Contains(got.Error, "nothing sent "+route) ||
		!strings.Contains(held.stderr, "rate limited until ") {
		t.Fatalf("A again: exit %d, %d requests in all, %+v, stderr %q; want exit 3 naming the time and %s, nothing sent",
			held.code, limitedSent.Load(), got, held.stderr, route)
	}

	// Portkey's own retries: it says only -1 once they are spent; the config says how many.
	retried := u.run("-p", "hi", "--profile", "c", "--json")
	seen = append(seen, retried.stdout, retried.stderr)
	gw := decode[struct {
		Attempts        int    `json:"attempts"`
		GatewayAttempts int    `json:"gateway_attempts"`
		Error           string `json:"error"`
	}](t, retried.stdout)
	if retried.code != 3 || gw.Attempts != 1 || gw.GatewayAttempts != 4 || retriedSent.Load() != 4 ||
		!strings.Contains(gw.Error, "gateway retried 3× · ") {
		t.Fatalf("behind Portkey's retries: exit %d, %+v, %d upstream requests; want one attempt, four upstream, said",
			retried.code, gw, retriedSent.Load())
	}

	for _, s := range seen {
		if strings.Contains(s, key) {
			t.Errorf("the key is in what parley wrote: %q", s)
		}
	}
	filepath.Walk(u.home, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), key) {
			t.Errorf("the key is in %s", path)
		}
		return nil
	})
}

// startPortkey starts the gateway's start script on a free port of 127.0.0.1's and returns its
// URL once it answers; it is stopped when the test ends.
func startPortkey(t *testing.T, node, start string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, filepath.Base(start), fmt.Sprintf("--port=%d", port), "--headless")
	cmd.Dir = filepath.Dir(start)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get(url + "/"); err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("Portkey did not answer on %s within a minute:\n%s", url, out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// upstream starts an OpenAI-shaped server on 127.0.0.1 answering chat completions with serve,
// counted in sent, and returns its URL.
func upstream(t *testing.T, sent *atomic.Int32, serve http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		sent.Add(1)
		serve(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
