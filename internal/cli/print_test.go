package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"parley/agent/agenttest"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// Print mode: a prompt in, a reply out, the run stored, and the exit status the interface
// contract gives (the cases that are a command line and its output are testdata/script/print-*
// and bad-config.txtar); a cut reply continued with --continue; the model's control sequences
// on a terminal.

func TestPrintModeContinuesASession(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	first := decode[printJSON](t, u.run("-p", "first", "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	second := decode[printJSON](t, u.run("-p", "second", "-c", "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	third := decode[printJSON](t, u.run("-p", "third", "--session", first.SessionID, "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	if second.SessionID != first.SessionID || third.SessionID != first.SessionID {
		t.Fatalf("sessions %s, %s, %s: want one session", first.SessionID, second.SessionID, third.SessionID)
	}
	msgs := srv.Received()[2].Messages
	if len(msgs) != 5 || msgs[0].Content != "first" || msgs[2].Content != "second" || msgs[4].Content != "third" {
		t.Fatalf("third request carried %+v, want the whole conversation", msgs)
	}
}

// A key with a line break or another control character cannot go into a header: it is a
// configuration error naming the variable (never the key), not a network error retried.
func TestAKeyWithAControlCharacterIsAConfigurationError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, env, key string }{
		{"CR", "OPENAI_API_KEY", "sk-proj-abcdefghij0123456789\r"},
		{"LF", "PARLEY_TEST_KEY", "sk-proj-abcdefghij0123456789\n"},
		{"DEL", "OPENAI_API_KEY", "sk-proj-abcdefghij\x7f0123456789"},
		{"NUL", "OPENAI_API_KEY", "\x00sk-proj-abcdefghij0123456789"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u, srv := newServedUser(t, c.env+"="+c.key)
			args := endpointFlags(srv)
			if c.env != "OPENAI_API_KEY" {
				args = append(args, "--api-key-env", c.env)
			}
			r := u.run(append(args, "-p", "hello")...)
			want := "parley: " + c.env + " holds a line break or another control character, which no HTTP header can carry: set it to the key alone\n"
			if r.code != 2 || r.stderr != want || srv.Requests() != 0 {
				t.Fatalf("exit %d, %d requests, stderr %q\nwant exit 2, no request, %q", r.code, srv.Requests(), r.stderr, want)
			}
			if strings.Contains(r.stderr, "abcdefghij") {
				t.Fatal("the key is in the message")
			}
			// The chat screen does not open on it either: no countdown, no request.
			if r := u.onTerminal(args...); r.code != 2 || r.stderr != want || srv.Requests() != 0 {
				t.Fatalf("on a terminal: exit %d, %d requests, stderr %q", r.code, srv.Requests(), r.stderr)
			}
		})
	}
}

func TestOperatorMessageIsStoredBeforeTheRequest(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(demo.Fault{Stall: true}) // answered never: the run ends when the test does
	u.start("-p", "remember this", "--base-url", srv.URL(), "--model", "m")
	chattest.WaitFor(t, "the request", func() bool { return srv.Requests() == 1 })
	// While the request is still unanswered, a second parley finds the message stored.
	sessions := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout)
	if len(sessions) != 1 {
		t.Fatalf("sessions while the request is open: %+v", sessions)
	}
	e := decode[exportJSON](t, u.run("export", sessions[0].ID, "--json").stdout)
	if len(e.Messages) != 2 || e.Messages[0].Content != "remember this" || e.Messages[1].Status != "running" {
		t.Fatalf("stored while the request is open: %+v", e.Messages)
	}
}

func TestAPIKeyNeverStored(t *testing.T) {
	t.Parallel()
	const key = "sk-parley-test-secret-4242"
	u, srv := newServedUser(t, "PARLEY_TEST_KEY="+key)
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--api-key-env", "PARLEY_TEST_KEY", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := srv.Received()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the key was not sent: Authorization %q", got)
	}
	out := decode[printJSON](t, r.stdout)
	exp := u.run("export", out.SessionID, "--json")
	files, err := filepath.Glob(filepath.Join(u.home, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files under PARLEY_HOME: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), key) {
			t.Errorf("%s contains the API key", f)
		}
	}
	if strings.Contains(r.stdout+r.stderr+exp.stdout, key) {
		t.Error("the API key was printed")
	}
}

// Print mode buffers its output for speed, yet a pipe still receives the reply as it streams,
// not all at once at the end.
func TestPrintModeStreamsToAPipeAsTextArrives(t *testing.T) {
	t.Parallel()
	skipRealTime(t)
	srv := demotest.Start(t, demo.Options{Pace: 20 * time.Millisecond, Tokens: 150})
	u := newUser(t)
	done, code, stdout, _ := u.start("-p", "go", "--base-url", srv.URL(), "--model", "m")
	// 150 chunks at 20 ms take 3 s: text must show long before the end.
	chattest.WaitFor(t, "the first words on the pipe", func() bool { return stdout.String() != "" })
	early := stdout.String()
	select {
	case <-done:
		t.Fatalf("the reply reached the pipe only when parley ended (exit %d)", code())
	default:
	}
	if c := code(); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if all := stdout.String(); !strings.HasPrefix(all, early) || len(all) <= len(early) {
		t.Fatalf("early text %q is not the start of the reply %q", early, all)
	}
}

// The model that answered is the one the reply and --json name; the one asked for stands
// beside it when they differ.
func TestTheModelThatAnsweredIsNamed(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{ServedModel: "gpt-4o-mini-2024-07-18"})
	u := newUser(t)
	r := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "gpt-4o-mini", "--json")
	var out struct {
		SessionID      string `json:"session_id"`
		Model          string `json:"model"`
		RequestedModel string `json:"requested_model"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	if out.Model != "gpt-4o-mini-2024-07-18" || out.RequestedModel != "gpt-4o-mini" {
		t.Errorf("model %q, requested %q", out.Model, out.RequestedModel)
	}
	e := decode[struct{ Messages []struct{ Model string } }](t, u.run("export", out.SessionID, "--json").stdout)
	if m := e.Messages[len(e.Messages)-1]; m.Model != "gpt-4o-mini-2024-07-18" {
		t.Errorf("the stored reply names %q", m.Model)
	}
}

// A reply to a pipe or a file ends its last line, as a terminal's does, whether the model
// ended it or not; --json prints the reply as it came.
func TestPrintModeEndsTheLastLine(t *testing.T) {
	t.Parallel()
	const endsLine = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"one line\n"}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"
	u, srv := newServedUser(t)
	srv.Push(demo.Fault{}, demo.Fault{Stream: endsLine}, demo.Fault{})
	ep := endpointFlags(srv)
	r := u.run(append(ep, "-p", "hello")...)
	if text := strings.TrimSuffix(r.stdout, "\n"); r.code != 0 || r.stdout != text+"\n" || strings.HasSuffix(text, "\n") || text == "" {
		t.Errorf("exit %d, stdout ends %q: want the reply and one line break", r.code, r.stdout[max(0, len(r.stdout)-20):])
	}
	if r := u.run(append(ep, "-p", "hello")...); r.stdout != "one line\n" {
		t.Errorf("a reply that ends its line: %q", r.stdout)
	}
	r = u.run(append(ep, "-p", "hello", "--json")...)
	if out := decode[printJSON](t, r.stdout); strings.HasSuffix(out.Text, "\n") || !strings.HasSuffix(r.stdout, "}\n") {
		t.Errorf("--json: text %q, stdout ends %q", out.Text, r.stdout[len(r.stdout)-5:])
	}
}

// A run that sent nothing (no key, a provider's wait remembered, a spend limit) leaves no new
// session behind: nobody's conversation started. A session it continued keeps what it had, and
// the message, which is never taken back.
func TestARunThatSentNothingLeavesNoSession(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	noKey := []string{"--base-url", srv.URL(), "--model", "m", "--api-key-env", "PARLEY_TEST_UNSET_KEY"}
	for range 2 {
		r := u.run(append([]string{"-p", "hello", "--json"}, noKey...)...)
		if out := decode[printJSON](t, r.stdout); r.code != 1 || out.SessionID != "" || out.RunID != 0 || out.Stored == nil || *out.Stored ||
			!strings.HasSuffix(r.stderr, "PARLEY_TEST_UNSET_KEY is not set: export PARLEY_TEST_UNSET_KEY=… or name another variable with --api-key-env (not retryable)\n") {
			t.Fatalf("exit %d, %+v, stderr %q", r.code, out, r.stderr)
		}
	}
	if r := u.run("sessions"); r.code != 0 || r.stdout != "" {
		t.Fatalf("sessions after two runs without a key: %q", r.stdout)
	}

	// Held back by the provider's wait: nothing sent, no session; the one that heard it stays.
	srv.Push(rateLimited3000())
	u.instantClock()
	ep := []string{"--base-url", srv.URL(), "--model", "gpt-4o"}
	first := decode[printJSON](t, u.run(append([]string{"-p", "hello", "--json"}, ep...)...).stdout)
	r := u.run(append([]string{"-p", "hello again", "--json"}, ep...)...)
	if out := decode[printJSON](t, r.stdout); r.code != 3 || srv.Requests() != 1 || out.SessionID != "" || out.Stored == nil || *out.Stored {
		t.Fatalf("held: exit %d after %d requests, %+v; want no session, stored false", r.code, srv.Requests(), out)
	}
	if s := decode[[]sessionJSON](t, u.run("sessions", "--json").stdout); len(s) != 1 || s[0].ID != first.SessionID {
		t.Fatalf("sessions %+v; want only %s", s, first.SessionID)
	}
	// Continued, the session keeps the message and its run.
	if r := u.run(append([]string{"-p", "and now?", "-c"}, ep...)...); r.code != 3 {
		t.Fatalf("held, continuing: exit %d", r.code)
	}
	if e := decode[exportJSON](t, u.run("export", first.SessionID, "--json").stdout); len(e.Messages) != 4 || e.Messages[2].Content != "and now?" {
		t.Fatalf("the session continued holds %+v", e.Messages)
	}
}

// A session keeps the profile and model it last ran on: -c goes on with them, whatever the
// configured default; --model goes on its profile, --profile moves it.
func TestASessionKeepsItsProfileAndModel(t *testing.T) {
	t.Parallel()
	a, b := demotest.Start(t, demo.Options{}), demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.writeConfig(fmt.Sprintf("profile = \"a\"\n[profiles.a]\nbase_url = %q\nmodel = \"ma\"\n[profiles.b]\nbase_url = %q\nmodel = \"mb\"\n", a.URL(), b.URL()))
	sent := func(srv *demo.Server) string {
		t.Helper()
		var body struct{ Model string }
		if err := json.Unmarshal(srv.Received()[len(srv.Received())-1].Body, &body); err != nil {
			t.Fatal(err)
		}
		return body.Model
	}
	for _, c := range []struct {
		args  []string
		srv   *demo.Server
		model string
	}{
		{[]string{"-p", "hi", "--profile", "b", "--model", "mb-large"}, b, "mb-large"},
		{[]string{"-p", "and then?", "-c"}, b, "mb-large"},
		{[]string{"-p", "shorter", "-c", "--model", "mb-small"}, b, "mb-small"},
		{[]string{"-p", "once more", "-c"}, b, "mb-small"},
		{[]string{"-p", "elsewhere", "-c", "--profile", "a"}, a, "ma"},
		{[]string{"-p", "and back?", "-c"}, a, "ma"},
	} {
		before := c.srv.Requests()
		if r := u.run(c.args...); r.code != 0 || c.srv.Requests() != before+1 || sent(c.srv) != c.model {
			t.Fatalf("%v: exit %d, %d requests there, model %q; want %q (stderr %q)", c.args, r.code, c.srv.Requests()-before, sent(c.srv), c.model, r.stderr)
		}
	}
	if s := decode[[]sessionJSON](t, u.run("sessions", "--json").stdout); len(s) != 1 {
		t.Fatalf("sessions %+v; want one", s)
	}
	// A new session starts on the default.
	if r := u.run("-p", "new"); r.code != 0 || sent(a) != "ma" {
		t.Errorf("a new session: exit %d, model %q", r.code, sent(a))
	}
}

// A reply cut after 40 chunks, then `parley -c --continue`: the request carries the cut text
// as the assistant's turn, stdout gets what follows the cut, and the session holds one joined
// reply, its seam where the cut was, beside the cut version.
func TestPrintModeContinuesTheCutReply(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(demo.Fault{CutAfter: 40})
	endpoint := endpointFlags(srv)
	cut := decode[printJSON](t, u.run(append([]string{"-p", "tell me about quokkas", "--json"}, endpoint...)...).stdout)
	if cut.Status != "failed" || cut.Text == "" {
		t.Fatalf("the cut run: %+v", cut)
	}
	r := u.run(append([]string{"-c", "--continue"}, endpoint...)...)
	if r.code != 0 || srv.Requests() != 2 {
		t.Fatalf("exit %d, %d requests; stderr %q", r.code, srv.Requests(), r.stderr)
	}
	sent := srv.Received()[1].Messages
	if len(sent) < 2 || sent[0].Content != "tell me about quokkas" || sent[1].Role != "assistant" || sent[1].Content != cut.Text {
		t.Fatalf("the continuation sent %+v; want the cut text as the assistant's turn", sent)
	}
	e := decode[exportJSON](t, u.run("export", cut.SessionID, "--json").stdout)
	var live []string
	for _, m := range e.Messages {
		if m.Role == "assistant" && !m.Superseded {
			live = append(live, m.Content)
		}
	}
	if len(e.Messages) != 3 || len(live) != 1 || live[0] != cut.Text+strings.TrimSuffix(r.stdout, "\n") {
		t.Fatalf("export %+v; want the cut version and one reply joined from it and stdout %q", e.Messages, r.stdout)
	}
	if e.Messages[1].Content != cut.Text || !e.Messages[1].Superseded {
		t.Errorf("the cut version is not kept: %+v", e.Messages[1])
	}
}

// Model output reaches a pipe as the model wrote it, and a terminal with its control
// sequences neutralised (e2e runs the same through a real terminal).
func TestControlSequencesNeutralisedOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(demo.Fault{Stream: demotest.HostileStream}, demo.Fault{Stream: demotest.HostileStream})

	piped := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "m")
	if !strings.Contains(piped.stdout, "\x1b]52;c;") || !strings.Contains(piped.stdout, "\x1b[31m") {
		t.Fatalf("to a pipe the raw text must pass unchanged, got %q", piped.stdout)
	}

	s := u.onTerminal("-p", "hi", "--base-url", srv.URL(), "--model", "m", "--raw").stdout
	demotest.CheckNeutralised(t, s, s)

	// Rendered as markdown (a terminal without --raw), the same text is as safe.
	srv.Push(demo.Fault{Stream: demotest.HostileStream})
	rendered := u.onTerminal("-p", "hi", "--base-url", srv.URL(), "--model", "m").stdout
	if text := ansi.Strip(rendered); !strings.Contains(text, "then done") || strings.Contains(text, "ned-again") {
		t.Errorf("rendered, the visible text is wrong: %q", text)
	}
	for _, seq := range []string{"\x1b]52", "\x1b]0;"} {
		if strings.Contains(rendered, seq) {
			t.Errorf("rendered terminal output carries %q: %q", seq, rendered)
		}
	}
}

// A stdout that cannot be written for another reason than a closed pipe (a full disk:
// > /dev/full) does not cancel the reply: the run goes on to its end and is stored whole, and
// parley exits 1 with the cause on stderr. A closed pipe (| head) still ends the run.
func TestPrintModeStdoutThatCannotBeWrittenKeepsTheRun(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer full.Close()
	u := newUser(t)
	srv := demotest.Start(t, demo.Options{Tokens: 400, Pace: time.Millisecond})
	r := u.runWith(func(ios *IO) { ios.Out = full }, "", append(endpointFlags(srv), "-p", "a long story")...)
	sessions := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout)
	if len(sessions) != 1 {
		t.Fatalf("sessions %+v", sessions)
	}
	want := "parley: cannot write the reply to stdout: write /dev/full: no space left on device; it is stored whole: parley export " +
		sessions[0].ID[:8] + " prints it\n"
	if r.code != 1 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q\nwant exit 1, %q", r.code, r.stderr, want)
	}
	e := decode[exportJSON](t, u.run("export", sessions[0].ID, "--json").stdout)
	reply := e.Messages[len(e.Messages)-1]
	if reply.Status != "succeeded" || len(reply.Content) < 1000 {
		t.Fatalf("stored %s, %d bytes: the reply was cut", reply.Status, len(reply.Content))
	}
	if srv.Requests() != 1 {
		t.Errorf("%d requests", srv.Requests())
	}
}

// sseChunk is a chat.completion.chunk data line, as OpenAI sends it, of choice index with
// delta (JSON fields) and finish (a JSON value), and the blank line ending its event.
func sseChunk(index int, delta, finish string) string {
	return fmt.Sprintf(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":%d,"delta":{%s},"logprobs":null,"finish_reason":%s}]}`+"\n\n", index, delta, finish)
}

// Event streams in print mode as the SSE specification allows them and servers send them: a
// data field over several lines is read; choices besides the first are left out and said; a
// reply that opened <think> and never closed it fails, saying so, exit 1.
func TestPrintModeReadsStreamsAsServersSendThem(t *testing.T) {
	t.Parallel()
	role := sseChunk(0, `"role":"assistant","content":""`, "null")
	end := sseChunk(0, ``, `"stop"`) + "data: [DONE]\n\n"
	for _, c := range []struct {
		name, stream string
		code         int
		stdout       string
		stderr       string
	}{
		{"data over several lines", role +
			"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\n" +
			"data: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello, world\"},\n" +
			"data: \"finish_reason\":null}]}\n\n" + end,
			0, "Hello, world\n", ""},
		{"other choices", role + sseChunk(0, `"content":"Paris."`, "null") + sseChunk(1, `"content":"Lyon."`, "null") + end,
			0, "Paris.\n", "parley: the endpoint sent 1 more choice than the one asked for; only the first is shown and kept\n"},
		{"think never closed", role + sseChunk(0, `"content":"<think>Five, seven, five."`, "null") + end,
			1, "", "parley: Empty response — the stream ended without any reply text: all of it was thinking, and its <think> was never closed (not retryable, session SESSION)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u, srv := newServedUser(t)
			srv.Push(demo.Fault{Stream: c.stream})
			r := u.run(append(endpointFlags(srv), "-p", "hello")...)
			sessions := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout)
			if len(sessions) != 1 {
				t.Fatalf("sessions %+v", sessions)
			}
			want := strings.ReplaceAll(c.stderr, "SESSION", sessions[0].ID[:8])
			if r.code != c.code || r.stdout != c.stdout || r.stderr != want || srv.Requests() != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q after %d requests\nwant exit %d, %q, %q", r.code, r.stdout, r.stderr, srv.Requests(), c.code, c.stdout, want)
			}
		})
	}
}

// --json prints one object however print mode ends: a usage error, a limit on what is piped,
// stored false when nothing was kept, never a stored run with no session.
func TestJSONIsOneObjectOnEveryEnding(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	type failedJSON struct {
		SessionID string  `json:"session_id"`
		Status    string  `json:"status"`
		Error     *string `json:"error"`
		Stored    bool    `json:"stored"`
	}
	for name, r := range map[string]result{
		"a bad flag value": u.run("-p", "hi", "--json", "--wait=-5s"),
		"too much piped":   u.pipe(strings.Repeat("x", 300<<10), "-p", "summarise", "--json", "--base-url", srv.URL(), "--model", "m"),
		"a prompt twice":   u.run("-p", "hi", "--json", "again"),
	} {
		if r.code != 2 {
			t.Errorf("%s: exit %d, %q", name, r.code, r.stderr)
		}
		res := decode[failedJSON](t, r.stdout)
		if res.Status != "failed" || res.Stored || res.Error == nil || !strings.Contains(r.stderr, *res.Error) {
			t.Errorf("%s: %+v, stderr %q", name, res, r.stderr)
		}
	}
	if srv.Requests() != 0 {
		t.Errorf("%d requests", srv.Requests())
	}
}

// Each network failure, and a rejected key, is said in print mode as one line naming its
// cause and the fix that fits it, with the exit status of its retryability; the key and the
// proxy's password appear nowhere.
func TestPrintModeSaysEachFailuresOwnCause(t *testing.T) {
	t.Parallel()
	expired := agenttest.NewSigner(t).Serve(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), nil, net.ParseIP("127.0.0.1"))
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	untrusted.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes that fail are the test
	t.Cleanup(untrusted.Close)
	rejects := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		// OpenAI's, as the corpus has it
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided: sk-wrong***1234. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
	}))
	t.Cleanup(rejects.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now
	missing := filepath.Join(t.TempDir(), "corp-ca.pem")
	host := func(url string) string { return strings.TrimPrefix(url, "https://") }
	// httptest's certificate is for example.com, *.example.com and the loopback addresses, not localhost
	asLocalhost := strings.Replace(host(untrusted.URL), "127.0.0.1", "localhost", 1)
	asksPassword := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Proxy-Authenticate", `Basic realm="office"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
	}))
	t.Cleanup(asksPassword.Close)
	proxy := strings.TrimPrefix(asksPassword.URL, "http://")
	const remote = "https://api.example.com/v1"

	for _, c := range []struct {
		name     string
		base     string
		env      []string
		resolver *net.Resolver
		code     int
		want     string
	}{
		{"an expired certificate", expired + "/v1", nil, nil, 1,
			"Network error — the certificate of " + host(expired) + " expired on 2026-11-30 (today is " +
				time.Now().UTC().Format(time.DateOnly) + " here): the server's operator must renew it, unless this machine's clock is wrong (not retryable"},
		{"SSL_CERT_FILE names a missing file", untrusted.URL + "/v1", []string{"SSL_CERT_FILE=" + missing}, nil, 1,
			"Network error — the certificate of " + host(untrusted.URL) + " is signed by an authority this machine does not trust: " +
				"SSL_CERT_FILE names " + missing + ", which does not exist; point it at that authority's certificate (not retryable"},
		{"a certificate for other hosts", "https://" + asLocalhost + "/v1", nil, nil, 1,
			"Network error — the certificate of " + asLocalhost + " is for example.com, *.example.com, 127.0.0.1, ::1, not localhost: use one of those in the base URL (not retryable"},
		{"an authority not trusted", untrusted.URL + "/v1", nil, nil, 1,
			"Network error — the certificate of " + host(untrusted.URL) + " is signed by an authority this machine does not trust: " +
				"if a private CA or a proxy signs it, point SSL_CERT_FILE (or SSL_CERT_DIR) at that authority's certificate (not retryable"},
		{"a proxy that asks for a password", remote, []string{"all_proxy=http://" + proxy}, nil, 1,
			"Network error — the proxy at http://" + proxy + " (all_proxy) asks for a password (407 Proxy Authentication Required): " +
				"put it in all_proxy as http://USER:PASSWORD@" + proxy + " (not retryable"},
		{"a proxy that refuses", remote, []string{"HTTPS_PROXY=http://ann:hunter2@" + closed}, nil, 1,
			"Network error — the proxy at http://[redacted]@" + closed + " (HTTPS_PROXY) refused the connection: start the proxy or " +
				"correct HTTPS_PROXY, or NO_PROXY=api.example.com connects to this host directly (not retryable"},
		{"a host that does not exist", "https://api.opneai.com/v1", nil, agenttest.DNS(t, 3), 1,
			"Network error — there is no host api.opneai.com (DNS knows none): check the host name in the base URL (https://api.opneai.com/v1) (not retryable"},
		{"DNS failing", remote, nil, agenttest.DNS(t, 2), 3,
			"Network error — DNS failed looking up api.example.com (server misbehaving): check this machine's network and its DNS resolver; " +
				"the host name may be right (retryable"},
		{"a rejected key", rejects.URL + "/v1", nil, nil, 1,
			"Authentication failed — Incorrect API key provided: sk-wrong***1234. You can find your API key at https://platform.openai.com/account/api-keys: " +
				"the server rejected the key in WORK_KEY; check its value, or name another variable with --api-key-env (not retryable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u := newUser(t, append(c.env, "WORK_KEY=sk-live-0123456789abcdef")...)
			u.instantClock() // Tier 1 waits on the refusing proxy pass at once
			u.writeConfig(fmt.Sprintf("[profiles.work]\nbase_url = %q\nmodel = \"m\"\napi_key_env = \"WORK_KEY\"\n", c.base))
			r := u.runWith(func(ios *IO) { ios.Resolver = c.resolver }, "", "-p", "hi")
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			last := lines[len(lines)-1]
			if r.code != c.code || !strings.HasPrefix(last, "parley: "+c.want+", session ") || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and the line\nparley: %s, session …)", r.code, r.stdout, r.stderr, c.code, c.want)
			}
			for _, secret := range []string{"sk-live-0123456789abcdef", "hunter2"} {
				if strings.Contains(r.stderr, secret) {
					t.Errorf("%s is on stderr", secret)
				}
			}
		})
	}
}
