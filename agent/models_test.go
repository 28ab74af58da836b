package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
)

func TestModelsListsTheEndpointsModelsSorted(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Model: "zeta", MoreModels: []string{"alpha", "mid"}})
	c := NewClient(Endpoint{BaseURL: srv.URL()}, chat.SystemClock{}, retry.DefaultPolicy())
	got, err := c.Models(context.Background())
	if err != nil || !slices.Equal(got, []string{"alpha", "mid", "zeta"}) {
		t.Fatalf("models %v, %v", got, err)
	}
	unkeyed := NewClient(Endpoint{BaseURL: srv.URL(), KeyErr: "NOPE is not set"}, chat.SystemClock{}, retry.DefaultPolicy())
	var le *ListError
	if _, err := unkeyed.Models(context.Background()); !errors.As(err, &le) || le.Class.Class != chat.CredentialsUnresolved ||
		le.Class.Message != "NOPE is not set" {
		t.Fatalf("without a key: %v", err)
	}
	if srv.Requests() != 0 {
		t.Fatalf("%d chat requests for a list of models", srv.Requests())
	}
}

// Listing the models fails as a run would, classified and with the fix named: a server that
// is down, one still loading its model, a path that is not an API's.
func TestModelsFailuresAreClassified(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() + "/v1"
	l.Close()
	loading := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
	}))
	defer loading.Close()
	for _, tc := range []struct {
		name, url string
		class     chat.Class
		retryable bool
		says      string
	}{
		{"down", down, chat.Network, false, "nothing is listening on " + l.Addr().String()},
		{"loading", loading.URL + "/v1", chat.Overloaded, true, "Loading model"},
	} {
		c := NewClient(Endpoint{BaseURL: tc.url}, chat.SystemClock{}, retry.DefaultPolicy())
		_, err := c.Models(context.Background())
		var le *ListError
		if !errors.As(err, &le) || le.Class.Class != tc.class || le.Class.Retryable != tc.retryable || !strings.Contains(le.Class.Message, tc.says) {
			t.Errorf("%s: %v (%+v)", tc.name, err, le)
		}
	}
}
