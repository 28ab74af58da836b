package mcp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/internal/mcp"
)

func TestStreamableHTTPSendsHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var requests []http.Header
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newTestServer([]string{"echo"}) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Header.Clone())
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the Host's Close, which ends the stream it holds open

	h, _ := open(t, mcp.Server{Name: "web", URL: srv.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer t0ken", "X-Team": "parley"}})
	ctx := context.Background()
	tools, err := h.Tools(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 4 { // echo, busy, die and wait
		t.Errorf("tools: %+v", tools)
	}
	res, err := h.Call(ctx, "web", "echo", []byte(`{"text":"over HTTP"}`))
	if err != nil || res.Text != "echo: over HTTP" {
		t.Fatalf("%+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) < 3 {
		t.Fatalf("%d requests", len(requests))
	}
	for i, hdr := range requests {
		if hdr.Get("Authorization") != "Bearer t0ken" || hdr.Get("X-Team") != "parley" {
			t.Errorf("request %d came without the headers: %v", i, hdr)
		}
	}
}

func TestStreamableHTTPNothingListening(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	h, _ := open(t, mcp.Server{Name: "web", URL: url})
	_, err = h.Tools(context.Background(), "web")
	want := `mcp server "web": nothing is listening at ` + url + ` (connection refused): is the server running? check [mcp.web] url in config.toml`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}
