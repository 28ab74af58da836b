package e2e

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The packages' rules on what they may import, as go list sees them: print mode is the chat
// screen's peer, not below it or the command line; the chat screen takes the demo and the
// roles as its own types, not the configuration's or the demo's.
func TestImportRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list: run without -short")
	}
	t.Parallel()
	for pkg, banned := range map[string][]string{
		"parley/internal/printmode": {"parley/tui", "parley/internal/cli"},
		"parley/tui":                {"parley/internal/config", "parley/internal/demo"},
	} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		for _, b := range banned {
			if slices.Contains(deps, b) {
				t.Errorf("%s imports %s", pkg, b)
			}
		}
	}
}
