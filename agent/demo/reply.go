package demo

import (
	"embed"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

//go:embed replies/*.md
var replies embed.FS

func canned(name string) string {
	b, err := replies.ReadFile("replies/" + name + ".md")
	if err != nil {
		panic(err) // the files are embedded at build time
	}
	return strings.TrimRight(string(b), "\n")
}

// Reply returns the demo's reply to a conversation. It answers the last user message where it
// can (greetings, parley's keys, retries, the /demo commands, code) and otherwise gives a
// generic reply that says it is the offline demo. The same messages always get the same reply.
func Reply(msgs []Message) string {
	var q string
	for _, m := range msgs {
		if m.Role == "user" {
			q = m.Content
		}
	}
	lower := strings.ToLower(q)
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '/'
	}) {
		words[w] = true
	}
	// mentions reports whether q has one of the words, or contains one of the phrases.
	mentions := func(terms ...string) bool {
		for _, t := range terms {
			if words[t] || (strings.Contains(t, " ") && strings.Contains(lower, t)) {
				return true
			}
		}
		return false
	}
	first, _, _ := strings.Cut(strings.TrimSpace(lower), " ")
	switch {
	case strings.Contains(lower, "/demo") || mentions("misbehave", "misbehaviour", "misbehavior",
		"fault", "faults", "break", "simulate", "demo command", "demo commands"):
		return canned("faults")
	case mentions("retry", "retries", "retrying", "retried", "backoff", "overload", "overloaded",
		"rate limit", "rate limited", "ratelimit", "countdown", "429", "503"):
		return canned("retries")
	case mentions("key", "keys", "shortcut", "shortcuts", "keyboard", "keybinding", "keybindings",
		"hotkey", "hotkeys", "regenerate", "copy"):
		return canned("keys")
	case mentions("code", "function", "golang", "snippet", "program", "implement", "func",
		"in go", "go example"):
		return canned("code")
	case greetings[strings.TrimRightFunc(first, func(r rune) bool { return !unicode.IsLetter(r) })]:
		return canned("greeting")
	}
	return strings.Replace(canned("generic"), "QUESTION", quote(q), 1)
}

var greetings = map[string]bool{
	"hello": true, "hi": true, "hey": true, "hiya": true, "howdy": true, "greetings": true,
	"morning": true, "evening": true, "yo": true, "hallo": true, "bonjour": true, "hola": true,
}

// quote shortens a question to one line of at most 60 characters, for quoting in a reply.
func quote(q string) string {
	q = strings.Join(strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if q == "" {
		return "an empty message"
	}
	if utf8.RuneCountInString(q) > 60 {
		q = string([]rune(q)[:59]) + "…"
	}
	return q
}

// maxTokenRunes bounds a chunk, its leading space included, so chunks carry about four
// characters on average, as real endpoints stream them.
const maxTokenRunes = 8

// appendTokens splits text into the chunks a model streams and appends them to dst: a word
// piece or a run of one symbol (such as "```"), each with the space before it; a run of
// newlines; a run of other blanks. The chunks join back into text exactly.
func appendTokens(dst []string, text string) []string {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for len(text) > 0 {
		r, end := utf8.DecodeRuneInString(text)
		if r == ' ' {
			if next, size := utf8.DecodeRuneInString(text[end:]); size > 0 && !unicode.IsSpace(next) {
				r, end = next, end+size
			}
		}
		switch {
		case r == '\n':
			end = len(text) - len(strings.TrimLeft(text, "\n"))
		case r == ' ' || r == '\t':
			end = len(text) - len(strings.TrimLeft(text, " \t"))
		default:
			// Extend a word with word runes, a symbol with more of the same symbol.
			same := func(next rune) bool { return next == r }
			if isWord(r) {
				same = isWord
			}
			for n := utf8.RuneCountInString(text[:end]); n < maxTokenRunes; n++ {
				next, size := utf8.DecodeRuneInString(text[end:])
				if size == 0 || !same(next) {
					break
				}
				end += size
			}
		}
		dst = append(dst, text[:end])
		text = text[end:]
	}
	return dst
}

// syntheticTokens returns the first n chunks of a generated markdown document. The document
// is always the same, so benchmark runs compare.
func syntheticTokens(n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	toks := make([]string, 0, n+256)
	var b strings.Builder
	for section := 1; len(toks) < n; section++ {
		b.Reset()
		writeSection(&b, rng, section)
		toks = appendTokens(toks, b.String())
	}
	return toks[:n:n]
}

var vocabulary = strings.Fields(`the a stream reply model token request server client retry
	wait status banner message history session operator endpoint context cancel run attempt
	render screen input output latency budget limit quota cache buffer chunk delta frame
	quickly slowly always never only every each first last next honest visible quiet safe
	sends reads writes waits keeps shows stores drops counts parses renders streams retries
	with without before after until while because when where and but or so then`)

// codeLines are the body of the function in each section's code block.
var codeLines = []string{
	"\tif msg == \"\" {",
	"\t\treturn errors.New(\"empty message\")",
	"\t}",
	"\tfor attempt := 1; attempt <= 3; attempt++ {",
	"\t\tlog.Printf(\"attempt %d of %d\", attempt, 3)",
	"\t}",
	"\treturn c.flush(ctx)",
	"}",
}

// writeSection writes one section: a heading, paragraphs with inline code and links, a
// bulleted and a numbered list, and a fenced code block.
func writeSection(b *strings.Builder, rng *rand.Rand, section int) {
	word := func() string { return vocabulary[rng.IntN(len(vocabulary))] }
	sentence := func() string {
		n := 6 + rng.IntN(10)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		switch rng.IntN(4) {
		case 0:
			ws[rng.IntN(n)] = "`" + word() + "()`"
		case 1:
			w := word()
			ws[rng.IntN(n)] = fmt.Sprintf("[%s](https://example.com/%s)", w, w)
		case 2:
			ws[rng.IntN(n)] = "**" + word() + "**"
		}
		s := strings.Join(ws, " ")
		return strings.ToUpper(s[:1]) + s[1:] + "."
	}
	paragraph := func() {
		for i := range 3 + rng.IntN(3) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(sentence())
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(b, "## %d. The %s %s\n\n", section, word(), word())
	paragraph()
	for range 3 + rng.IntN(3) {
		fmt.Fprintf(b, "- %s %s `%s`\n", word(), word(), word())
	}
	b.WriteString("\n")
	paragraph()
	for i := range 2 + rng.IntN(3) {
		fmt.Fprintf(b, "%d. %s\n", i+1, sentence())
	}
	b.WriteString("\n```go\n")
	name := word()
	fmt.Fprintf(b, "func (c *Client) %s(ctx context.Context, msg string) error {\n", strings.ToUpper(name[:1])+name[1:])
	for _, l := range codeLines {
		b.WriteString(l + "\n")
	}
	b.WriteString("```\n\n")
	paragraph()
}
