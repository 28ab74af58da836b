package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"parley/internal/chat"
)

// versionLine is what --version prints: the module version and the VCS revision the build
// was made from, as Go stamped them into the binary, and the Go release.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "parley (unknown version) " + runtime.Version()
	}
	parts := []string{"parley", info.Main.Version}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		rev = rev[:min(len(rev), 12)]
		if settings["vcs.modified"] == "true" {
			rev += "+modified"
		}
		parts = append(parts, "rev "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	return strings.Join(append(parts, runtime.Version()), " ")
}

// printVersion is `parley version`: the version line.
func printVersion(ctx context.Context, _ []string, ios *IO) (int, error) {
	fmt.Fprintln(ios.Out, versionLine())
	return chat.ExitOK, nil
}
