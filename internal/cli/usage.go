package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"parley/internal/chat"
)

// printHelp is `parley help [COMMAND]`: the usage.
func printHelp(ctx context.Context, _ []string, ios *IO) (int, error) {
	printUsage(ios.Out)
	return chat.ExitOK, nil
}

// longUsage is a flag of more than one letter as the flag package lists it, with one dash
// where parley takes two.
var longUsage = regexp.MustCompile(`(?m)^  -(\w\w)`)

// printUsage is parley -h: the commands, the flags and the exit statuses.
func printUsage(w io.Writer) {
	fmt.Fprint(w, `parley: a terminal chat client for OpenAI-compatible endpoints

usage:
  parley [flags]                  open the chat screen (a new session)
  parley [flags] QUESTION         open the chat screen and send QUESTION
  parley -p PROMPT [flags]        print mode: stream one reply to stdout
  echo PROMPT | parley [flags]    print mode, prompt from stdin
  cat FILE | parley -p PROMPT     print mode: PROMPT, a blank line, then the piped text
  parley sessions [--json]        list sessions
  parley sessions rm ID…          delete sessions
  parley sessions title ID TEXT   rename a session
  parley search WORDS [--json]    find past messages (--limit N; exit 1 when none)
  parley export ID [--json|--markdown] [--images DIR]
  parley fork ID[:MSG] [--json]   a new session holding ID's conversation up to message MSG
  parley -c --continue            go on from where the latest session's reply was cut
  parley classify [FILE] [--json] how parley classifies a raw failure (response or stream text)
  parley roles [--json]           list roles (roles/NAME.md beside config.toml, [roles.NAME])
  parley version                  print the version
  parley help                     print this

parley's flags may stand before a command (parley --json sessions); a word a letter or two from
a command's name is refused as a typo, not sent: parley -p "…" sends any words as a prompt.

flags:
`)
	var flags strings.Builder
	fs := flagSet(new(options))
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	io.WriteString(w, longUsage.ReplaceAllString(flags.String(), "  --$1"))
	fmt.Fprint(w, `
exit status: 0 succeeded, 1 failed (not retryable; also thinking that used up the token limit,
or a stdout that could not be written),
2 usage or configuration error, 3 failed (retryable; also --timeout passed), 4 succeeded but not
stored (see the recovery file), 130 interrupted (143 SIGTERM, 129 SIGHUP), 141 stdout closed;
parley search exits 1 when nothing matches
`)
}
