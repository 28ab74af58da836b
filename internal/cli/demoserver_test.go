package cli

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"parley/internal/chat/chattest"
)

// `parley demo-server` prints its base URL, serves the demo endpoint there until ctrl+c, and
// then exits 0 (testdata/script/demo-server.txtar has its refusals).
func TestDemoServerServesUntilStopped(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := Test()
	out := new(chattest.Buffer)
	ios.Out = out
	ctx, stop := context.WithCancel(context.Background())
	exit := make(chan int, 1)
	go func() { exit <- Run(ctx, []string{"demo-server", "--addr", "127.0.0.1:0", "--pace", "0s"}, ios) }()
	chattest.WaitFor(t, "the base URL", func() bool { return strings.HasSuffix(out.String(), "/v1\n") })
	url := strings.TrimSpace(out.String())
	res, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/models: %s", url, res.Status)
	}
	stop()
	if code := <-exit; code != 0 {
		t.Fatalf("exit %d after ctrl+c, want 0", code)
	}
	if _, err := http.Get(url + "/models"); err == nil {
		t.Error("still serving after it exited")
	}
}
