package retry

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// providerError is what classification reads from an error body or error frame, whatever its
// envelope. Providers nest errors: a gateway wraps the upstream's error in its own, as an
// object, as a JSON string (OpenRouter's error.metadata.raw) or inside its message text
// (LiteLLM, TrueFoundry). Each error object met is a layer; the deeper a layer, the closer it is
// to the server that actually failed.
type providerError struct {
	// status is the HTTP status the innermost layer that states one stands for; 0 when none does.
	status int
	// message is the innermost layer's message, trimmed: the one that says most precisely what
	// went wrong.
	message string
	// codes and types are every layer's code or status and type, as written.
	codes, types []string
	// text is every layer's type, code, status, message and details, lower-cased, for matching.
	text string
}

// maxMessage bounds a message taken from a body that is not a provider error object, such as a
// proxy's error page.
const maxMessage = 300

// messageKeys name the fields that carry an error's message, or (as objects or arrays) the
// error itself: OpenAI's and Anthropic's "error", problem+json's "detail", Portkey's
// "html-message", FastAPI's "msg", MiniMax's "status_msg".
var messageKeys = []string{"message", "error", "detail", "html-message", "msg", "status_msg"}

// nestedKeys name fields that hold further errors: Cloudflare's v4 "errors" array, Azure's
// "innererror" and MiniMax's "base_resp" (an error it sends inside a 200).
var nestedKeys = []string{"errors", "innererror", "base_resp"}

// codeKeys name fields that hold a code or status; typeKeys those that hold a type.
var (
	codeKeys = []string{"code", "status", "http_status_code", "raw_status_code", "status_code"}
	typeKeys = []string{"type", "error_type"}
)

// parseProviderError reads the error in body, in any provider's envelope: an object
// ({"error":{…}}, {"type":"error","error":{…}}, a bare error object, problem+json, Cloudflare's
// {"errors":[…]}), an array of them (Gemini), a string, or text that is not JSON at all (a proxy's
// page). found is false when body is empty or holds nothing error-like.
func parseProviderError(body []byte) (pe providerError, found bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return pe, false
	}
	v, ok := decodeJSON(body)
	if !ok {
		msg := textMessage(body)
		return providerError{message: msg, text: strings.ToLower(msg)}, true
	}
	w := walker{msgDepth: -1, statusDepth: -1}
	w.value(v, 0)
	if len(w.parts) == 0 {
		if arr, ok := v.([]any); ok && len(arr) > 0 {
			v = arr[0] // Gemini streams its responses as an array
		}
		if obj, ok := v.(map[string]any); ok && finishedByFilter(obj) {
			return providerError{message: filterMessage(obj), text: "content_filter"}, true
		}
		return pe, false
	}
	w.pe.text = strings.ToLower(strings.Join(w.parts, " "))
	return w.pe, true
}

// decodeJSON decodes one JSON value from the start of b, ignoring what follows it (a gateway's
// message may go on after an upstream's error object).
func decodeJSON(b []byte) (any, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// eachField calls visit with every key and value of every object in a JSON body, at any depth,
// also inside an error passed on as a JSON string (a gateway's copy of its upstream's); a value
// visit claims, by returning true, is not looked into.
func eachField(body []byte, visit func(key string, v any) bool) {
	v, ok := decodeJSON(bytes.TrimSpace(body))
	if !ok {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				if !visit(k, e) {
					walk(e)
				}
			}
		case string:
			if s := strings.TrimSpace(x); strings.HasPrefix(s, "{") {
				if inner, ok := decodeJSON([]byte(s)); ok {
					walk(inner)
				}
			}
		}
	}
	walk(v)
}

// walker gathers the layers of an error value, keeping the innermost message and status (on a
// tie, the first met).
type walker struct {
	pe                    providerError
	parts                 []string
	msgDepth, statusDepth int
}

func (w *walker) value(v any, depth int) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			w.value(e, depth)
		}
	case map[string]any:
		w.object(x, depth)
	case string:
		w.message(x, depth)
	}
}

func (w *walker) object(o map[string]any, depth int) {
	for _, k := range messageKeys {
		switch x := o[k].(type) {
		case string:
			w.message(x, depth)
		case map[string]any, []any:
			w.value(x, depth+1)
		}
	}
	for _, k := range nestedKeys {
		w.value(o[k], depth+1)
	}
	if md, ok := o["metadata"].(map[string]any); ok {
		w.raw(md["raw"], depth+1)
	}
	for _, k := range typeKeys {
		if s, ok := o[k].(string); ok && s != "" {
			w.pe.types = append(w.pe.types, s)
			w.parts = append(w.parts, s)
		}
	}
	for _, k := range codeKeys {
		var s string
		switch x := o[k].(type) {
		case string:
			s = x
		case json.Number:
			s = x.String()
		default:
			continue
		}
		if s == "" {
			continue
		}
		w.pe.codes = append(w.pe.codes, s)
		w.parts = append(w.parts, s)
		if st := httpStatus(s); st != 0 && depth > w.statusDepth {
			w.pe.status, w.statusDepth = st, depth
		}
	}
	// Google's details name the quota that ran out (its id says per day or per minute) and the
	// reason (API_KEY_INVALID).
	if d, ok := o["details"]; ok {
		w.parts = appendStrings(w.parts, d)
	}
}

// raw reads an upstream's error a gateway passed on untouched: an object, a JSON string or
// plain text.
func (w *walker) raw(v any, depth int) {
	if s, ok := v.(string); ok {
		if inner, ok := decodeJSON([]byte(strings.TrimSpace(s))); ok {
			v = inner
		}
	}
	w.value(v, depth)
}

// message records s as a layer's message and reads the JSON error an upstream may have left
// inside it ("geminiException - {"error": {…}}").
func (w *walker) message(s string, depth int) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	w.parts = append(w.parts, s)
	if depth > w.msgDepth {
		w.pe.message, w.msgDepth = s, depth
	}
	if inner, ok := embeddedObject(s); ok {
		w.object(inner, depth+1)
	}
}

// maxEmbeddedTries bounds the braces tried when looking for an object inside a message.
const maxEmbeddedTries = 4

// embeddedObject finds the first JSON object inside message text.
func embeddedObject(s string) (map[string]any, bool) {
	rest := s
	for range maxEmbeddedTries {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		rest = rest[i:]
		if v, ok := decodeJSON([]byte(rest)); ok {
			obj, ok := v.(map[string]any)
			return obj, ok
		}
		rest = rest[1:]
	}
	return nil, false
}

// appendStrings appends every string within v.
func appendStrings(dst []string, v any) []string {
	switch x := v.(type) {
	case string:
		dst = append(dst, x)
	case []any:
		for _, e := range x {
			dst = appendStrings(dst, e)
		}
	case map[string]any:
		for _, e := range x {
			dst = appendStrings(dst, e)
		}
	}
	return dst
}

// finishedByFilter reports whether a chunk or answer withholds the reply without an error
// object: a choice ending with finish_reason "content_filter", or Google's own shapes, a prompt
// block (promptFeedback.blockReason) or a candidate stopped for a blocking reason.
func finishedByFilter(chunk map[string]any) bool {
	choices, _ := chunk["choices"].([]any)
	for _, c := range choices {
		if m, ok := c.(map[string]any); ok && m["finish_reason"] == "content_filter" {
			return true
		}
	}
	return blockReason(chunk) != ""
}

// googleBlocks are the finish reasons for which Gemini withholds a candidate.
var googleBlocks = map[string]bool{"SAFETY": true, "PROHIBITED_CONTENT": true, "BLOCKLIST": true, "SPII": true,
	"IMAGE_SAFETY": true, "RECITATION": true}

// blockReason is why a Gemini response was withheld: its prompt's block reason, or a
// candidate's blocking finish reason; "" when nothing was withheld.
func blockReason(resp map[string]any) string {
	if fb, ok := resp["promptFeedback"].(map[string]any); ok {
		if r, ok := fb["blockReason"].(string); ok && r != "" {
			return r
		}
	}
	candidates, _ := resp["candidates"].([]any)
	for _, c := range candidates {
		if m, ok := c.(map[string]any); ok {
			if r, ok := m["finishReason"].(string); ok && googleBlocks[r] {
				return r
			}
		}
	}
	return ""
}

// filterMessage says why a filter withheld the reply: the provider's words when it gave any,
// else its reason code.
func filterMessage(resp map[string]any) string {
	if fb, ok := resp["promptFeedback"].(map[string]any); ok {
		if m, ok := fb["blockReasonMessage"].(string); ok && strings.TrimSpace(m) != "" {
			return strings.TrimSpace(m)
		}
	}
	if r := blockReason(resp); r != "" {
		return "the provider withheld the reply (" + r + ")"
	}
	return "the provider's content filter stopped the reply"
}

// httpStatus returns s as an HTTP error status, or 0 when s is not one (Mistral's "1300").
func httpStatus(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 400 || n > 599 {
		return 0
	}
	return n
}

var (
	htmlTitle  = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	whitespace = regexp.MustCompile(`\s+`)
)

// textMessage is the message of a body that is not JSON: an HTML page's title (a proxy's error
// page says what happened there, and its markup says nothing), or the text itself, cut short.
func textMessage(body []byte) string {
	if m := htmlTitle.FindSubmatch(body); m != nil {
		if t := whitespace.ReplaceAllString(html.UnescapeString(string(m[1])), " "); strings.TrimSpace(t) != "" {
			return truncate(t, maxMessage)
		}
	}
	return truncate(string(body), maxMessage)
}

// truncate trims s and cuts it to n runes, marking the cut.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
