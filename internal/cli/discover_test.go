package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"parley/agent"
	"parley/retry"
)

// The chat screen opened without a model says why the endpoint's could not be listed; choosing
// one with /model is offered only where a model is what is missing, never for a rejected key.
func TestTheScreenOffersModelOnlyWhereAModelCanHelp(t *testing.T) {
	t.Parallel()
	answering := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/v1"
	}
	for _, c := range []struct {
		name, base, want string
	}{
		{"a rejected key", answering(http.StatusUnauthorized,
			`{"error":{"message":"Incorrect API key provided: sk-wrong***1234.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`),
			"no model named, and the endpoint's could not be listed: Authentication failed — Incorrect API key provided: sk-wrong***1234: " +
				"the server rejected the key in WORK_KEY; check its value, or name another variable with --api-key-env"},
		{"no models to list", answering(http.StatusOK, `{"object":"list","data":[]}`),
			"no model named, and the endpoint lists none — /model NAME chooses one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := Test()
			ep := agent.Endpoint{Name: "work", BaseURL: c.base, APIKey: "sk-live-0123456789", KeyEnv: "WORK_KEY"}
			a := &app{client: agent.NewClient(ep, ios.Clock, retry.DefaultPolicy())}
			_, problem := a.modelForScreen(context.Background(), ios)
			if problem != c.want {
				t.Errorf("problem %q\nwant    %q", problem, c.want)
			}
			if strings.Contains(problem, "sk-live") {
				t.Error("the key is in the problem")
			}
		})
	}
}
