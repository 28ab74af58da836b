package announce

import "testing"

// A reply's lines as the demo and real models write them, and what is said of each.
func TestMarkdownIsSaidAsWords(t *testing.T) {
	t.Parallel()
	inCode := false
	for _, c := range []struct{ line, said string }{
		{"Hello! I'm **parley's offline demo endpoint**: a small server", "Hello! I'm parley's offline demo endpoint: a small server"},
		{"## Keys that matter", "Keys that matter"},
		{"- *What are the keys?*", "- What are the keys?"},
		{"* a bullet with __strong__ and _soft_ words", "- a bullet with strong and soft words"},
		{"start parley with `--base-url`, `--model` and `--api-key-env`.", "start parley with --base-url, --model and --api-key-env."},
		{"see [the docs](https://example.com/parley) first", "see the docs (https://example.com/parley) first"},
		{"2*3*4 is 24, and snake_case_names stay", "2*3*4 is 24, and snake_case_names stay"},
		{"```go", "code, go:"},
		{"	fmt.Println(\"**not bold**\") // *kept*", "	fmt.Println(\"**not bold**\") // *kept*"},
		{"```", "end of code"},
		{"```", "code:"},
		{"# a shell comment, in code", "# a shell comment, in code"},
		{"~~~", "end of code"},
		{"# After the block", "After the block"},
	} {
		if got := words(c.line, &inCode); got != c.said {
			t.Errorf("%q said as %q, want %q", c.line, got, c.said)
		}
	}
}
