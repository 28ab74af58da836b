// Package demotest starts parley's demo endpoint for a test: the request-counting fake that
// every test server in parley is.
package demotest

import (
	"testing"

	"parley/internal/demo"
)

// Start starts a demo endpoint on 127.0.0.1 with opts and closes it when the test ends.
func Start(t testing.TB, opts demo.Options) *demo.Server {
	t.Helper()
	srv, err := demo.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}
