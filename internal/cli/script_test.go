package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"parley/history"
	"parley/history/historytest"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
)

// The command lines of testdata/script/*.txtar: each file is one case, a script of parley
// command lines with their expected stdout, stderr and exit status, and the files it starts
// with (its PARLEY_HOME is $WORK/home). CONTRIBUTING.md says how to write one.

var updateScripts = flag.Bool("update", false, "rewrite the files the scripts' cmp lines compare stdout and stderr with")

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		UpdateScripts:      *updateScripts,
		RequireUniqueNames: true,
		Setup:              setupScript,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"parley":         cmdParley,
			"status":         cmdStatus,
			"input":          cmdInput,
			"terminal":       cmdTerminal,
			"seed":           cmdSeed,
			"empty-sessions": cmdEmptySessions,
			"endpoint":       cmdEndpoint,
			"requests":       cmdRequests,
			"sent":           cmdSent,
			"prefix":         cmdPrefix,
			"capture":        cmdCapture,
			"demo":           cmdDemo,
			"fault":          cmdFault,
			"config":         cmdConfig,
		},
	})
}

// script is what one script's commands share: the next parley's stdin and terminals, and
// the last parley's exit status.
type script struct {
	// clock times every run's waits and stamps what is stored: waits pass at once, from the
	// start of the minute the script began in, so what is stored before any wait is dated
	// $DATE as parley lists it and $STAMP in its JSON.
	clock *chattest.Clock
	// endpoint is the script's demo endpoint, once `endpoint` has started it.
	endpoint *demo.Server
	input    string
	terminal bool
	code     int
	// unchecked is the `! parley` command line whose exit status no `status` has checked yet.
	unchecked string
}

type scriptKey struct{}

func setupScript(env *testscript.Env) error {
	start := time.Now().Truncate(time.Minute)
	s := &script{clock: chattest.NewInstant(start)}
	env.Values[scriptKey{}] = s
	home := filepath.Join(env.WorkDir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return err
	}
	// The database parley's first run leaves, as newUser's home holds it. testscript's T is
	// the script's *testing.T.
	historytest.Seed(env.T().(testing.TB), home)
	env.Setenv("PARLEY_HOME", home)
	env.Setenv("HOME", home)
	env.Setenv("DATE", chat.FormatDate(start))
	env.Setenv("STAMP", start.Local().Format(time.RFC3339Nano))
	env.Setenv("NL", "\n") // a line break in an argument, which a script's line cannot hold
	env.Defer(func() {
		if s.unchecked != "" {
			env.T().Fatal("the exit status of `! " + s.unchecked + "` is not checked: add `status N` after it")
		}
	})
	return nil
}

func scriptOf(ts *testscript.TestScript) *script { return ts.Value(scriptKey{}).(*script) }

// cmdParley is `parley ARGS…`: parley run in-process through Run, its stdout and stderr what
// the next stdout, stderr and cmp lines read. It must exit 0; `! parley` must exit non-zero,
// and a `status N` line then says which status.
func cmdParley(ts *testscript.TestScript, neg bool, args []string) {
	s := scriptOf(ts)
	if unchecked := s.unchecked; unchecked != "" {
		s.unchecked = "" // said here, not again as the script ends
		ts.Fatalf("the exit status of `! %s` is not checked: add `status N` after it", unchecked)
	}
	ios, in, out, errOut := Test()
	in.WriteString(s.input)
	ios.Getenv = ts.Getenv
	ios.Clock = s.clock
	ios.InTerminal, ios.OutTerminal, ios.ErrTerminal = s.terminal, s.terminal, s.terminal
	s.input, s.terminal = "", false
	s.code = Run(context.Background(), args, ios)
	ts.Stdout().Write(out.Bytes())
	ts.Stderr().Write(errOut.Bytes())
	ts.Logf("[exit status %d]", s.code)
	switch {
	case neg && s.code == 0:
		ts.Fatalf("parley exited 0; want a failure")
	case !neg && s.code != 0:
		ts.Fatalf("parley exited %d; want 0", s.code)
	case neg:
		s.unchecked = strings.Join(append([]string{"parley"}, args...), " ")
	}
}

// cmdStatus is `status N`: the last parley exited N.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: status N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	s := scriptOf(ts)
	s.unchecked = ""
	if s.code != want {
		ts.Fatalf("parley exited %d; want %d", s.code, want)
	}
}

// cmdInput is `input FILE`: the next parley reads FILE on stdin, as `parley … < FILE`; and
// `input -text TEXT`: it reads TEXT, with no line break after it, as `printf TEXT | parley …`.
func cmdInput(ts *testscript.TestScript, neg bool, args []string) {
	switch {
	case !neg && len(args) == 1:
		scriptOf(ts).input = ts.ReadFile(args[0])
	case !neg && len(args) == 2 && args[0] == "-text":
		scriptOf(ts).input = args[1]
	default:
		ts.Fatalf("usage: input FILE | input -text TEXT")
	}
}

// cmdTerminal is `terminal`: the next parley's stdin, stdout and stderr are a terminal, as
// when it is typed at one.
func cmdTerminal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: terminal")
	}
	scriptOf(ts).terminal = true
}

// cmdSeed is `seed NAME PROMPT REPLY [PROMPT REPLY]…`: a session stored through history as
// print mode stores one, each prompt answered by its reply, and $NAME set to its id. Its
// messages are numbered as the database numbers them: 1, 2… in the order seeded.
func cmdSeed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args)%2 != 1 {
		ts.Fatalf("usage: seed NAME PROMPT REPLY [PROMPT REPLY]…")
	}
	db := openScriptHistory(ts)
	defer db.Close()
	id := ""
	for i := 1; i < len(args); i += 2 {
		r, err := db.Post(id, args[i], "m", false)
		ts.Check(err)
		id = r.SessionID
		ts.Check(db.StartRun(r.RunID))
		ts.Check(db.AppendReply(r.RunID, args[i+1], ""))
		ts.Check(db.FinishRun(r.RunID, stored.Finish{Status: chat.StatusSucceeded, Attempts: 1}))
	}
	ts.Setenv(args[0], id)
}

// cmdEmptySessions is `empty-sessions ID…`: sessions with these ids and no message, written
// into the database as no parley writes them, since history's own ids are random and a case
// about ids that share a prefix needs chosen ones.
func cmdEmptySessions(ts *testscript.TestScript, neg bool, ids []string) {
	if neg || len(ids) == 0 {
		ts.Fatalf("usage: empty-sessions ID…")
	}
	openScriptHistory(ts).Close() // the schema
	db, err := sql.Open("sqlite", filepath.Join(ts.Getenv("PARLEY_HOME"), "history.db"))
	ts.Check(err)
	defer db.Close()
	for _, id := range ids {
		_, err := db.Exec(`INSERT INTO sessions (id, created_at, updated_at) VALUES (?, 1, 1)`, id)
		ts.Check(err)
	}
}

// openScriptHistory opens the script's database as parley does, on the script's clock.
func openScriptHistory(ts *testscript.TestScript) *history.DB {
	db, err := history.Open(filepath.Join(ts.Getenv("PARLEY_HOME"), "history.db"), history.WithClock(scriptOf(ts).clock))
	ts.Check(err)
	return db
}

// cmdEndpoint is `endpoint`: a demo endpoint on 127.0.0.1 for the script, in its defaults
// (no pace), its base URL in $ENDPOINT; `parley --base-url $ENDPOINT --model m` asks it.
func cmdEndpoint(ts *testscript.TestScript, neg bool, args []string) {
	s := scriptOf(ts)
	if neg || len(args) != 0 || s.endpoint != nil {
		ts.Fatalf("usage: endpoint (once a script)")
	}
	srv, err := demo.Start(demo.Options{})
	ts.Check(err)
	ts.Defer(func() { srv.Close() })
	s.endpoint = srv
	ts.Setenv("ENDPOINT", srv.URL())
}

// cmdRequests is `requests N`: the script's endpoint has been sent N requests so far.
func cmdRequests(ts *testscript.TestScript, neg bool, args []string) {
	s := scriptOf(ts)
	if neg || len(args) != 1 || s.endpoint == nil {
		ts.Fatalf("usage: requests N (after endpoint)")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := s.endpoint.Requests(); got != want {
		ts.Fatalf("the endpoint was sent %d requests; want %d", got, want)
	}
}

// cmdSent is `sent N TEXT`: the endpoint's Nth request (from 1) began with the message TEXT.
func cmdSent(ts *testscript.TestScript, neg bool, args []string) {
	s := scriptOf(ts)
	if neg || len(args) != 2 || s.endpoint == nil {
		ts.Fatalf("usage: sent N TEXT (after endpoint)")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := s.endpoint.Received()
	if n < 1 || n > len(got) {
		ts.Fatalf("the endpoint was sent %d requests; want at least %d", len(got), n)
	}
	if m := got[n-1].Messages; len(m) == 0 || m[0].Content != args[1] {
		ts.Fatalf("request %d began with %+v; want %q", n, m, args[1])
	}
}

// cmdPrefix is `prefix NAME VAR N`: $NAME is the first N characters of $VAR, as a user types
// a session id in part.
func cmdPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: prefix NAME VAR N")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	v := ts.Getenv(args[1])
	if n < 0 || n > len(v) {
		ts.Fatalf("$%s is %q, shorter than %d", args[1], v, n)
	}
	ts.Setenv(args[0], v[:n])
}

// cmdCapture is `capture NAME REGEXP`: $NAME is what REGEXP's first group matched in the last
// parley's stdout, as a user copies an id parley printed.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture NAME REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("no match for %#q with a group in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// cmdDemo is `demo COMMAND [ARGS]`: the chat screen's /demo command on the script's endpoint,
// queueing what its next requests get (demo cut 4, demo badkey, demo overload 1).
func cmdDemo(ts *testscript.TestScript, neg bool, args []string) {
	s := scriptOf(ts)
	if neg || len(args) == 0 || s.endpoint == nil {
		ts.Fatalf("usage: demo COMMAND [ARGS] (after endpoint)")
	}
	said, err := s.endpoint.Command(strings.Join(args, " "))
	ts.Check(err)
	ts.Logf("%s", said)
}

// cmdFault is `fault FILE`: the script's endpoint answers its next request with the demo.Fault
// FILE holds as JSON, for a failure no /demo command makes.
func cmdFault(ts *testscript.TestScript, neg bool, args []string) {
	s := scriptOf(ts)
	if neg || len(args) != 1 || s.endpoint == nil {
		ts.Fatalf("usage: fault FILE (after endpoint)")
	}
	var f demo.Fault
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &f))
	s.endpoint.Push(f)
}

// cmdConfig is `config FILE`: FILE, its $VARs expanded ($ENDPOINT, say), is the script's
// config.toml.
func cmdConfig(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: config FILE")
	}
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("PARLEY_HOME"), "config.toml"), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o600))
}
