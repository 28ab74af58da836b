package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"parley/history/historytest"
	"parley/internal/chat"
	"parley/retry"
)

// Two profiles on one gateway URL and model that route to two upstreams by
// x-portkey-custom-host: one upstream's 429 with a 50-minute reset holds back its route alone,
// and the hold names the route; the other's requests are sent and answered.
func TestAGatewayIsRoutes(t *testing.T) {
	t.Parallel()
	var held, healthy atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("x-portkey-custom-host") == "http://127.0.0.1:9001" {
			held.Add(1)
			// Portkey's shape of an upstream's error: "<provider> error: …", and the provider.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("x-portkey-provider", "openai")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"openai error: Rate limit reached for requests. Please try again in 50m0s.","type":"requests","param":null,"code":"rate_limit_exceeded"},"provider":"openai"}`)
			return
		}
		healthy.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n")
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	store := historytest.Open(t)
	clock := instantClock()
	route := func(host string) Endpoint {
		return Endpoint{BaseURL: srv.URL + "/v1", Model: "m", KeyEnv: "PORTKEY_API_KEY",
			Headers: map[string]string{"x-portkey-provider": "openai", "x-portkey-custom-host": host}}
	}
	a, b := route("http://127.0.0.1:9001"), route("http://127.0.0.1:9002")
	send := func(ep Endpoint) chat.Event {
		return lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello))
	}
	if ev := send(a); ev.Kind != chat.EventFailed || ev.Class.RetryAfterUntil.IsZero() ||
		!strings.Contains(ev.Class.Message, "openai error") {
		t.Fatalf("the limited upstream (its words unredacted: openai is no secret): %+v", ev)
	}
	ev := send(a)
	if held.Load() != 1 || ev.Class.Rule != "endpoint.memory" {
		t.Fatalf("the limited route was sent %d requests, ended %+v", held.Load(), ev)
	}
	if want := "(route: " + strings.TrimPrefix(srv.URL, "http://") + " … custom-host 127.0.0.1:9001 provider openai)"; !strings.Contains(ev.Class.Message, want) {
		t.Errorf("the hold says %q, want it to name its route %q", ev.Class.Message, want)
	}
	for range 2 {
		if ev := send(b); ev.Kind != chat.EventFinished {
			t.Errorf("the healthy route was held: %+v", ev)
		}
	}
	if healthy.Load() != 2 {
		t.Errorf("the healthy route got %d requests, want 2", healthy.Load())
	}
}

// A route names a secret routing header by a hash, never its value; route_key makes a route
// of its own.
func TestARouteNeverSaysASecret(t *testing.T) {
	t.Parallel()
	const vk = "vk-portkey-5f3a9c1e7b2d"
	ep := Endpoint{BaseURL: "https://api.portkey.ai/v1", Model: "m", Headers: map[string]string{"x-portkey-virtual-key": vk}}
	if r, l := ep.Route(), ep.RouteLabel(); strings.Contains(r+l, vk) || !strings.Contains(l, "virtual-key #") {
		t.Errorf("route %q, label %q: the virtual key must be a hash", r, l)
	}
	other := ep
	other.RouteKey = "eu"
	if ep.Route() == other.Route() || !strings.Contains(other.RouteLabel(), "route_key eu") {
		t.Errorf("route_key makes no route of its own: %q, %q", ep.Route(), other.Route())
	}
}
