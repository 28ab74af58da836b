package demo

import (
	"embed"
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

// Reply returns the demo's reply to a conversation. It says what images the last message
// carried, answers its text where it can (greetings, parley's keys, retries, the /demo
// commands, code) and otherwise gives a generic reply that says it is the offline demo. The
// same messages always get the same reply.
func Reply(msgs []Message) string {
	if n := len(msgs); n > 0 && len(msgs[n-1].Images) > 0 {
		last := msgs[n-1]
		rest := msgs[: n-1 : n-1]
		if strings.TrimSpace(last.Content) == "" {
			return describeImages(last.Images)
		}
		return describeImages(last.Images) + "\n\n" + Reply(append(rest, Message{Role: last.Role, Content: last.Content}))
	}
	if said, ok := toolReply(msgs); ok {
		return said
	}
	q := lastUser(msgs)
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

// lastUser returns the content of the last user message, "" when there is none.
func lastUser(msgs []Message) string {
	var q string
	for _, m := range msgs {
		if m.Role == "user" {
			q = m.Content
		}
	}
	return q
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
