package agent

import (
	"context"
	"slices"
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
	if _, err := unkeyed.Models(context.Background()); err == nil || err.Error() != "NOPE is not set" {
		t.Fatalf("without a key: %v", err)
	}
	if srv.Requests() != 0 {
		t.Fatalf("%d chat requests for a list of models", srv.Requests())
	}
}
