package demo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fault is how the server misbehaves for one chat completion request. The zero Fault is a
// normal reply. When several fields are set, Delay comes first, then the first of Reset,
// Status, Stream and Stall applies; failing those the request gets a reply, shaped by Think,
// ThinkFor, ThinkText, ThinkOnly, MaxAnswer and Finish, and broken off by StallAfter or else
// CutAfter. A request that does not stream gets the same reply whole: its thinking, after
// ThinkFor, in the message's reasoning_content or reasoning field or inline in its content, and
// its body broken off halfway by StallAfter or CutAfter.
//
// In JSON (POST /_demo/faults) the fields are snake_case and Delay and ThinkFor are in
// nanoseconds.
type Fault struct {
	// Status, when non-zero, is the HTTP status sent with Header and Body as they are. Header
	// without a Status goes with the 200 of a reply: a provider's rate-limit headers, say.
	Status int               `json:"status,omitempty"`
	Header map[string]string `json:"header,omitempty"`
	Body   string            `json:"body,omitempty"`
	// Stream, when non-empty, is sent as the raw body of a 200 text/event-stream response.
	Stream string `json:"stream,omitempty"`
	// CutAfter, when positive, streams the reply normally and drops the connection after that
	// many chunks of text, thinking or answer: no finish_reason, no [DONE].
	CutAfter int `json:"cut_after,omitempty"`
	// Stall sends 200 event-stream headers, then only keep-alive comments, one a second,
	// until the client goes away.
	Stall bool `json:"stall,omitempty"`
	// StallAfter, when positive, streams the reply normally until that many chunks of text,
	// thinking or answer, then sends nothing more, not even keep-alives, until the client goes
	// away: a hung server or a half-open connection.
	StallAfter int `json:"stall_after,omitempty"`
	// Reset drops the TCP connection with a reset before any response is sent.
	Reset bool `json:"reset,omitempty"`
	// Delay holds the response back this long, or until the client goes away.
	Delay time.Duration `json:"delay,omitempty"`

	// Think, when set, makes the reply think before it answers, in that shape.
	Think ThinkShape `json:"think,omitempty"`
	// ThinkFor is how long the thinking takes on the server clock, spread evenly over its
	// chunks (one silence for ThinkSilent); 0 paces thinking chunks as content chunks are paced.
	ThinkFor time.Duration `json:"think_for,omitempty"`
	// ThinkText is what is thought; default Thinking of the request's messages.
	ThinkText string `json:"think_text,omitempty"`
	// ThinkOnly ends the reply while it is still thinking: no answer and, in the tags and bare
	// shapes, no </think>. With Finish "length" it is a token limit spent on thinking.
	ThinkOnly bool `json:"think_only,omitempty"`
	// MaxAnswer, when positive, shortens the answer to that many chunks. With Finish "length"
	// it is an answer stopped by the token limit.
	MaxAnswer int `json:"max_answer,omitempty"`
	// Finish is the reply's finish_reason, such as "length"; default "stop".
	Finish string `json:"finish,omitempty"`
	// Calls, when set, make the reply ask for these tool calls instead of answering (see
	// AskTools); CutAfter then counts argument fragments.
	Calls []Call `json:"calls,omitempty"`
}

// String describes f in a few words, as /demo status lists it.
func (f Fault) String() string {
	var what string
	switch {
	case f.Reset:
		what = "connection reset"
	case f.Status != 0:
		what = "HTTP " + strconv.Itoa(f.Status)
		if code := errorCode(f.Body); code != "" {
			what += " " + code
		}
	case f.Stream != "":
		what = "raw stream"
	case f.Stall:
		what = "stall"
	default:
		what = f.replyString()
	}
	if f.Delay > 0 {
		what = "delay " + f.Delay.String() + ", " + what
	}
	return what
}

// replyString describes the reply f shapes.
func (f Fault) replyString() string {
	var parts []string
	if f.Think != "" {
		think := "think " + string(f.Think)
		if f.ThinkFor > 0 {
			think += " " + f.ThinkFor.String()
		}
		parts = append(parts, think)
	}
	if f.ThinkOnly {
		parts = append(parts, "no answer")
	}
	if f.MaxAnswer > 0 {
		parts = append(parts, "answer of "+counted(f.MaxAnswer, "chunk"))
	}
	if f.Finish != "" {
		parts = append(parts, "finish "+f.Finish)
	}
	for _, c := range f.Calls {
		parts = append(parts, "call "+c.Function)
	}
	switch {
	case f.StallAfter > 0:
		parts = append(parts, "stall after "+counted(f.StallAfter, "chunk"))
	case f.CutAfter > 0:
		parts = append(parts, "cut after "+counted(f.CutAfter, "chunk"))
	}
	if len(parts) == 0 {
		return "normal reply"
	}
	return strings.Join(parts, ", ")
}

// errorCode returns the string error.code of an OpenAI error body, or "".
func errorCode(body string) string {
	var e struct {
		Error struct {
			Code any `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) != nil {
		return ""
	}
	code, _ := e.Error.Code.(string)
	return code
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

func jsonFault(status int, header map[string]string, message, typ, param, code string) Fault {
	quote := func(s string) string {
		if s == "" {
			return "null"
		}
		return string(jsonString(s))
	}
	return Fault{
		Status: status,
		Header: header,
		Body: fmt.Sprintf("{\n  \"error\": {\n    \"message\": %s,\n    \"type\": %s,\n    \"param\": %s,\n    \"code\": %s\n  }\n}\n",
			quote(message), quote(typ), quote(param), quote(code)),
	}
}

// Times is n copies of f, to queue for an outage of n requests.
func Times(n int, f Fault) []Fault { return slices.Repeat([]Fault{f}, n) }

// Overloaded is a 503: the model is overloaded. Retryable.
func Overloaded() Fault {
	return jsonFault(503, jsonHeader,
		"That model is currently overloaded with other requests. You can retry your request, or contact us through our help center if the error persists.",
		"server_error", "", "overloaded")
}

// RateLimited is a 429 rate_limit_exceeded that advises retrying after the given wait, in
// the message and in the Retry-After (seconds, rounded up), retry-after-ms and
// x-ratelimit-reset-requests (a Go duration such as "6m0s") headers.
func RateLimited(after time.Duration) Fault {
	secs := (after + time.Second - 1) / time.Second
	ms := (after + time.Millisecond - 1) / time.Millisecond
	return jsonFault(429, map[string]string{
		"Content-Type":                   "application/json",
		"Retry-After":                    strconv.FormatInt(int64(secs), 10),
		"Retry-After-Ms":                 strconv.FormatInt(int64(ms), 10),
		"X-Ratelimit-Limit-Requests":     "3",
		"X-Ratelimit-Remaining-Requests": "0",
		"X-Ratelimit-Reset-Requests":     after.String(),
	},
		fmt.Sprintf("Rate limit reached for %s in organization org-parley-demo on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in %s.", DefaultModel, after),
		"requests", "", "rate_limit_exceeded")
}

// Quota is a 429 insufficient_quota: the account is out of credit. Not retryable.
func Quota() Fault {
	return jsonFault(429, jsonHeader,
		"You exceeded your current quota, please check your plan and billing details.",
		"insufficient_quota", "", "insufficient_quota")
}

// BadKey is a 401 invalid_api_key, as a server that wants a key says it to a request that
// carries none (parley sends the demo none). Not retryable.
func BadKey() Fault {
	return jsonFault(401, jsonHeader,
		"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
		"invalid_request_error", "", "invalid_api_key")
}

// ContextOverflow is a 400 context_length_exceeded. Not retryable as it is.
func ContextOverflow() Fault {
	return jsonFault(400, jsonHeader,
		"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
		"invalid_request_error", "messages", "context_length_exceeded")
}

// ErrorEvent is a 200 stream whose first frame is a server_error event, then [DONE]: an
// error that arrives inside the stream before any content.
func ErrorEvent() Fault {
	return Fault{Stream: `data: {"error":{"message":"The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center if you keep seeing this error.","type":"server_error","param":null,"code":null}}` +
		"\n\ndata: [DONE]\n\n"}
}

// maxCount bounds the N of overload, cut and stallafter.
const maxCount = 1000

// lengthAnswer is how many chunks of answer /demo length lets through.
const lengthAnswer = 16

// commands are the /demo commands and their arguments, in the order help lists them.
var commands = []struct{ name, args string }{
	{"overload", "[N]"},
	{"ratelimit", "DURATION"},
	{"quota", ""},
	{"badkey", ""},
	{"overflow", ""},
	{"context", "N [FORM] | context off"},
	{"error", ""},
	{"cut", "[N]"},
	{"stall", ""},
	{"stallafter", "N"},
	{"think", "SHAPE [DURATION]"},
	{"thinkonly", "[SHAPE]"},
	{"length", ""},
	{"tool", "NAME [JSON]"},
	{"reset", ""},
	{"status", ""},
	{"help", "[COMMAND]"},
}

// usage lists every /demo command, one line.
var usage = func() string {
	forms := make([]string, len(commands))
	for i, c := range commands {
		forms[i] = strings.TrimSpace(c.name + " " + c.args)
	}
	return "usage: /demo " + strings.Join(forms, " | ")
}()

// commandUsage is the usage line of one command, with its choices spelled out, short enough
// for a narrow screen; the whole list when there is no such command.
func commandUsage(name string) string {
	for _, c := range commands {
		if c.name == name {
			// Spelled out here only, to keep the whole list short.
			args := strings.NewReplacer("SHAPE", names(ThinkShapes), "FORM", names(Overflows)).Replace(c.args)
			return strings.TrimSpace("usage: /demo " + c.name + " " + args)
		}
	}
	return usage
}

// Command runs the arguments of a "/demo" command, such as "overload 3" or "ratelimit 50m",
// and returns a one-line confirmation. Bad input gives an error that ends with the command's
// usage line, or the whole usage line when the command is unknown.
func (s *Server) Command(args string) (string, error) {
	fields := strings.Fields(args)
	if len(fields) > 0 && fields[0] == "/demo" {
		fields = fields[1:]
	}
	if len(fields) == 0 {
		fields = []string{"help"}
	}
	name, rest := fields[0], fields[1:]
	bad := func(format string, a ...any) (string, error) {
		return "", fmt.Errorf("/demo %s: %s; %s", name, fmt.Sprintf(format, a...), commandUsage(name))
	}
	// count reads the optional N of a command, def when absent. The cap keeps a typo from
	// queueing millions of faults.
	count := func(def int) (int, bool) {
		if len(rest) == 0 {
			return def, true
		}
		n, err := strconv.Atoi(rest[0])
		return n, err == nil && n > 0 && n <= maxCount && len(rest) == 1
	}
	single := func(f Fault, confirm string) (string, error) {
		if len(rest) > 0 {
			return bad("takes no arguments")
		}
		s.Push(f)
		return confirm, nil
	}
	switch name {
	case "overload":
		n, ok := count(3)
		if !ok {
			return bad("N must be a whole number from 1 to %d", maxCount)
		}
		s.Push(Times(n, Overloaded())...)
		if n == 1 {
			return "demo: the next request gets 503 overloaded", nil
		}
		return fmt.Sprintf("demo: the next %d requests get 503 overloaded", n), nil
	case "ratelimit":
		if len(rest) != 1 {
			return bad("give one duration, such as 20s or 50m")
		}
		d, err := time.ParseDuration(rest[0])
		if err != nil || d <= 0 {
			return bad("%q is not a positive duration such as 20s or 50m", rest[0])
		}
		s.Push(RateLimited(d))
		return fmt.Sprintf("demo: the next request gets 429 rate limited, retry after %s", d), nil
	case "quota":
		return single(Quota(), "demo: the next request gets 429 insufficient_quota (no retry can fix it)")
	case "badkey":
		return single(BadKey(), "demo: the next request gets 401 invalid_api_key")
	case "overflow":
		return single(ContextOverflow(), "demo: the next request gets 400 context_length_exceeded")
	case "context":
		return s.contextCommand(rest, bad)
	case "error":
		return single(ErrorEvent(), "demo: the next reply starts with an error event inside the stream")
	case "cut":
		n, ok := count(20)
		if !ok {
			return bad("N must be a whole number from 1 to %d", maxCount)
		}
		s.Push(Fault{CutAfter: n})
		return "demo: the next reply breaks off after " + counted(n, "chunk"), nil
	case "stall":
		return single(Fault{Stall: true}, "demo: the next request stalls, sending only keep-alives, until cancelled")
	case "stallafter":
		n, ok := count(0)
		if !ok || n == 0 {
			return bad("N must be a whole number from 1 to %d", maxCount)
		}
		s.Push(Fault{StallAfter: n})
		return "demo: the next reply goes silent after " + counted(n, "chunk") + ", not even keep-alives, until cancelled", nil
	case "think", "thinkonly":
		return s.thinkCommand(name, rest, bad)
	case "length":
		return single(Fault{MaxAnswer: lengthAnswer, Finish: "length"},
			fmt.Sprintf("demo: the next reply stops after %d chunks with finish_reason length", lengthAnswer))
	case "tool":
		return s.toolCommand(rest, bad)
	case "reset":
		if len(rest) > 0 {
			return bad("takes no arguments")
		}
		s.mu.Lock()
		n := len(s.faults)
		s.faults = nil
		s.mu.Unlock()
		return "demo: cleared " + counted(n, "queued fault"), nil
	case "status":
		if len(rest) > 0 {
			return bad("takes no arguments")
		}
		return s.status(), nil
	case "help":
		switch len(rest) {
		case 0:
			return usage, nil
		case 1:
			if u := commandUsage(rest[0]); u != usage {
				return u, nil
			}
			return bad("unknown command %q", rest[0])
		}
		return bad("give at most one command")
	}
	return bad("unknown command")
}

// status describes the fault queue and the request count in one line.
func (s *Server) status() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	queue := "no faults queued"
	if len(s.faults) > 0 {
		names := make([]string, len(s.faults))
		for i, f := range s.faults {
			names[i] = f.String()
		}
		queue = fmt.Sprintf("%d queued: %s", len(s.faults), strings.Join(names, ", "))
	}
	return fmt.Sprintf("demo: %s · %s so far", queue, counted(len(s.received), "request"))
}

// counted is n of noun, plural unless one: "1 request", "3 requests".
func counted(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}
