package chat

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// Redacted stands where a secret was.
const Redacted = "[redacted]"

// MinSecret is the length below which a value is never taken for a secret: a key such as
// "test" or "token" would turn every such word a server writes into Redacted.
const MinSecret = 8

// RedactURL is raw with what may be a secret in it replaced by Redacted: a password (and the
// user name beside it) and every query value (?key=…), so that a base URL can be logged,
// stored, printed and exported. Text that does not parse as a URL keeps nothing after an "@"
// that precedes the host.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if at := strings.LastIndexByte(raw, '@'); at >= 0 {
			if scheme := strings.Index(raw, "://"); scheme >= 0 && scheme < at {
				return raw[:scheme+3] + Redacted + raw[at:]
			}
		}
		return raw
	}
	if u.User == nil && u.RawQuery == "" {
		return raw // nothing to hide: as it was written
	}
	if u.User != nil {
		u.User = url.User(Redacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{Redacted}
		}
		u.RawQuery = q.Encode()
	}
	return strings.NewReplacer("%5Bredacted%5D", Redacted, "%5bredacted%5d", Redacted).Replace(u.String())
}

// Secrets are the values of an endpoint's settings that are secrets: its key, the values of
// its headers that SecretValue calls secret (and the credential after a "Bearer " in them),
// and its base URL's password and secret query values. Which are long enough to redact is
// NewRedactor's to decide.
func Secrets(key, baseURL string, headers map[string]string) []string {
	out := []string{key}
	add := func(name, value string) {
		if SecretValue(name, value) {
			out = append(out, value)
			if _, cred, ok := strings.Cut(value, " "); ok {
				out = append(out, strings.TrimSpace(cred))
			}
		}
	}
	for name, value := range headers {
		add(name, value)
		if u, err := url.Parse(value); err == nil {
			if pw, ok := u.User.Password(); ok {
				out = append(out, pw)
			}
		}
	}
	if u, err := url.Parse(baseURL); err == nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
		for name, values := range u.Query() {
			for _, v := range values {
				add(name, v)
			}
		}
	}
	return out
}

// secretWords are the words of a header or query parameter's name that make its value a
// secret whatever it looks like: Authorization, x-api-key, x-portkey-api-key, api-key, ?key=,
// access_token. Whole words: x-portkey-provider names no key.
var secretWords = map[string]bool{"key": true, "apikey": true, "token": true, "accesstoken": true, "authtoken": true,
	"secret": true, "clientsecret": true, "auth": true, "authorization": true, "password": true, "passwd": true,
	"cookie": true, "credential": true, "credentials": true, "signature": true, "sig": true, "session": true}

// SecretValue reports whether the value of the header or query parameter name is a secret:
// a word of the name says so (secretWords), or the value looks like a key (keyLike). A header
// such as x-portkey-provider = "openai" is not one.
func SecretValue(name, value string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if secretWords[w] {
			return true
		}
	}
	return keyLike(value)
}

// keyLike reports whether v looks like a key: 20 characters or more, with letters and digits
// and nothing else but the punctuation keys and tokens carry (sk-proj-…, gsk_…, a JWT).
func keyLike(v string) bool {
	if len(v) < 20 || strings.Contains(v, "://") { // a URL (x-portkey-custom-host): its password is what Secrets takes
		return false
	}
	var letters, digits bool
	for _, r := range v {
		switch {
		case r < unicode.MaxASCII && unicode.IsLetter(r):
			letters = true
		case r < unicode.MaxASCII && unicode.IsDigit(r):
			digits = true
		case !strings.ContainsRune("-_.~+/=:", r):
			return false
		}
	}
	return letters && digits
}

// Redactor takes an endpoint's secrets out of what the world says: the one gate that replies,
// thinking, tool calls and their results, and errors of every shape pass before parley shows,
// stores, logs or sends on any of it. The nil Redactor takes nothing out. It is safe for
// concurrent use.
type Redactor struct {
	// secrets are the values replaced, longest first (so a secret that holds another is
	// replaced whole), each also as JSON writes it inside a string when that differs.
	secrets []string
}

// NewRedactor returns the redactor of secrets, leaving out those shorter than MinSecret.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) < MinSecret {
			continue
		}
		r.secrets = append(r.secrets, s)
		for _, escapeHTML := range []bool{false, true} {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(escapeHTML)
			_ = enc.Encode(s) // a string: cannot fail
			if q := strings.TrimSuffix(b.String(), "\n"); q[1:len(q)-1] != s {
				r.secrets = append(r.secrets, q[1:len(q)-1])
			}
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	r.secrets = slices.Compact(r.secrets)
	return r
}

// String returns text with every secret replaced by Redacted.
func (r *Redactor) String(text string) string {
	if r == nil {
		return text
	}
	for _, s := range r.secrets {
		if strings.Contains(text, s) {
			text = strings.ReplaceAll(text, s, Redacted)
		}
	}
	return text
}

// Bytes is String for bytes: b itself when it holds no secret.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, s := range r.secrets {
		if bytes.Contains(b, []byte(s)) {
			return []byte(r.String(string(b)))
		}
	}
	return b
}

// Classification returns c with the secrets taken out of its words.
func (r *Redactor) Classification(c Classification) Classification {
	c.Label, c.Message = r.String(c.Label), r.String(c.Message)
	return c
}

// partial is the length of the longest end of text that is the start of a secret: what must
// wait for the next piece before it can be told from one.
func (r *Redactor) partial(text string) int {
	longest := 0
	for _, s := range r.secrets {
		for n := min(len(text), len(s)-1); n > longest; n-- {
			if strings.HasSuffix(text, s[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}

// Tail redacts text that arrives in pieces: it holds back the end of what it was given while
// that end may be the start of a secret, so a secret split across pieces, down to one
// character a piece, is still replaced whole. The zero Tail of a nil Redactor holds nothing.
type Tail struct {
	r    *Redactor
	held string
}

// Tail returns a Tail that redacts with r.
func (r *Redactor) Tail() *Tail { return &Tail{r: r} }

// Write takes the next piece and returns what of the text so far can be passed on.
func (t *Tail) Write(piece string) string {
	if t.r == nil {
		return piece
	}
	text := t.r.String(t.held + piece)
	keep := t.r.partial(text)
	t.held = text[len(text)-keep:]
	return text[:len(text)-keep]
}

// Flush returns what is held: the text has ended, and its end was no secret.
func (t *Tail) Flush() string {
	held := t.held
	t.held = ""
	return held
}

// Events passes a run's events on with the secrets taken out of everything in them that the
// world wrote: reply text and thinking, tool calls (their arguments across pieces), the
// classification of a failure, the model's name. Text that may be the start of a secret waits
// for the next piece of its kind; what waits is passed on before any other event but usage,
// and at the latest before the terminal event. With no secrets, in is returned as it is.
func (r *Redactor) Events(in <-chan Event) <-chan Event {
	if r == nil || len(r.secrets) == 0 {
		return in
	}
	out := make(chan Event, cap(in))
	go func() {
		defer close(out)
		g := eventGate{r: r, out: out, text: r.Tail(), thought: r.Tail(), args: map[int]*Tail{}}
		for ev := range in {
			g.pass(ev)
		}
		g.flush()
	}()
	return out
}

// eventGate is Events' state: a tail for the answer, one for the thinking, one for each tool
// call's arguments by index.
type eventGate struct {
	r             *Redactor
	out           chan<- Event
	text, thought *Tail
	args          map[int]*Tail
}

func (g *eventGate) pass(ev Event) {
	switch ev.Kind {
	case EventDelta, EventReasoning:
		tail, other, otherKind := g.text, g.thought, EventReasoning
		if ev.Kind == EventReasoning {
			tail, other, otherKind = g.thought, g.text, EventDelta
		}
		g.send(Event{Kind: otherKind, Text: other.Flush()})
		ev.Text = tail.Write(ev.Text)
		g.send(ev)
		return
	case EventUsage:
		g.out <- ev
		return
	case EventToolCall:
		g.flushText()
		tail := g.args[ev.CallIndex]
		if tail == nil {
			tail = g.r.Tail()
			g.args[ev.CallIndex] = tail
		}
		ev.Call.ID, ev.Call.Function = g.r.String(ev.Call.ID), g.r.String(ev.Call.Function)
		ev.Call.Arguments = tail.Write(ev.Call.Arguments)
		if ev.Call.ID != "" || ev.Call.Function != "" || ev.Call.Arguments != "" {
			g.out <- ev
		}
		return
	}
	g.flush()
	ev.Class = g.r.Classification(ev.Class)
	ev.Model = g.r.String(ev.Model)
	if len(ev.Calls) > 0 {
		ev.Calls = slices.Clone(ev.Calls)
		for i, c := range ev.Calls {
			ev.Calls[i] = ToolCall{ID: g.r.String(c.ID), Function: g.r.String(c.Function), Arguments: g.r.String(c.Arguments)}
		}
	}
	for i, name := range ev.ToolCalls {
		if s := g.r.String(name); s != name {
			ev.ToolCalls = slices.Clone(ev.ToolCalls)
			ev.ToolCalls[i] = s
		}
	}
	g.out <- ev
}

// send passes on a text event that still has text.
func (g *eventGate) send(ev Event) {
	if ev.Text != "" {
		g.out <- ev
	}
}

// flushText passes on the held answer and thinking.
func (g *eventGate) flushText() {
	g.send(Event{Kind: EventReasoning, Text: g.thought.Flush()})
	g.send(Event{Kind: EventDelta, Text: g.text.Flush()})
}

// flush passes on everything held: text, then each call's arguments in the order of the calls.
func (g *eventGate) flush() {
	g.flushText()
	for _, i := range slices.Sorted(maps.Keys(g.args)) {
		if rest := g.args[i].Flush(); rest != "" {
			g.out <- Event{Kind: EventToolCall, CallIndex: i, Call: ToolCall{Arguments: rest}}
		}
	}
}
