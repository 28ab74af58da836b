package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"parley/internal/config"
	"parley/internal/printmode"
	"parley/internal/sanitize"
	"parley/tui/theme"
)

// options are parley's own flags (not its subcommands'), checked against each other.
type options struct {
	config.Flags
	// printMode is set by -p, or by a stdin that is not a terminal; prompt is then -p's value,
	// the question, or what stdin held. Otherwise prompt is the question to send as soon as
	// the chat screen opens, if any.
	printMode bool
	prompt    string
	// prompts counts the -p flags given: only one is sent, so more are refused.
	prompts int
	// piped is what stdin held when it was piped to a prompt given as -p or a question: it
	// is sent after the prompt.
	piped string
	// promptPiped is set when the prompt itself came from stdin: it is held to the limit of
	// piped text.
	promptPiped bool
	// files are -f's paths, attached to the prompt.
	files []string
	// version is --version.
	version bool
	// print holds print mode's own flags; the wiring fills in the rest.
	print printmode.Options
	// cont is -c; sessionID is --session.
	cont      bool
	sessionID string
	// timeout is --timeout, the longest print mode may take in all; 0 sets none.
	timeout time.Duration
	// raw is --raw: print mode writes the reply as the model sent it, on a terminal too.
	raw bool
}

// printModeUsage begins the usage of every flag that only print mode takes: what marks a flag
// print-only, for parseFlags, is what tells the operator so in parley -h.
const printModeUsage = "print mode: "

// flagSet binds parley's flags to o.
func flagSet(o *options) *flag.FlagSet {
	fs := quietFlags("parley")
	fs.Func("p", printModeUsage+"send `PROMPT`, stream the reply to stdout, exit", func(s string) error {
		o.prompt = s
		o.prompts++
		return nil
	})
	fs.BoolVar(&o.print.JSON, "json", false, printModeUsage+"print one JSON object at the end")
	fs.BoolVar(&o.print.ShowReasoning, "show-reasoning", false, printModeUsage+"write the model's thinking to stderr")
	fs.BoolVar(&o.raw, "raw", false, printModeUsage+"write the reply's markdown as the model sent it (on a terminal it is rendered; piped, it is raw)")
	fs.BoolVar(&o.print.Force, "force", false, printModeUsage+"send even while the provider's last wait holds the endpoint")
	fs.Var(&waitFlag{&o.print.Wait}, "wait", printModeUsage+"wait for a retryable failure as the chat screen would, up to `MAX` in all (--wait alone: 30m)")
	fs.BoolVar(&o.print.UseFallback, "fallback", false, printModeUsage+"after a retryable failure with no output, try the profile's fallback once")
	fs.Func("allow-tool", printModeUsage+"let tool `SERVER.TOOL` (or every tool of SERVER) run when the model calls it, turning it on (repeatable)", func(s string) error {
		if s == "" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
			return errors.New("want a tool as SERVER.TOOL, or a server's name")
		}
		o.print.AllowTools = append(o.print.AllowTools, s)
		return nil
	})
	fs.BoolVar(&o.print.AllowAllTools, "allow-tools", false, printModeUsage+"let every tool that is on run when the model calls it")
	fs.Func("timeout", printModeUsage+"stop after `DURATION` in all, requests, retries and --wait's waits, keeping what came (exit 3)", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return errors.New("want a time such as 30s or 5m")
		}
		o.timeout = d
		return nil
	})
	fs.BoolVar(&o.cont, "c", false, "continue the latest session")
	fs.BoolVar(&o.print.Continue, "continue", false, "go on from where the session's last reply was cut, in print mode (with -c or --session; no prompt)")
	fs.StringVar(&o.sessionID, "session", "", "open session `ID`")
	fs.StringVar(&o.BaseURL, "base-url", "", "endpoint base `URL`, e.g. http://127.0.0.1:11434/v1")
	fs.StringVar(&o.Model, "model", "", "model `NAME`")
	fs.StringVar(&o.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	fs.StringVar(&o.Profile, "profile", "", "config profile or preset `NAME`")
	fs.StringVar(&o.Role, "role", "", "start with role `NAME`'s system prompt (parley roles lists them)")
	fs.StringVar(&o.System, "system", "", "start with the system prompt `TEXT`")
	attachFile := func(p string) error {
		o.files = append(o.files, p)
		return nil
	}
	fs.Func("f", "attach the text file `PATH` to the prompt (repeatable)", attachFile)
	fs.Func("file", "same as -f", attachFile)
	fs.BoolVar(&o.version, "version", false, "print parley's version and exit")
	fs.BoolVar(&o.Demo, "demo", false, "use the built-in offline demo endpoint")
	fs.Func("theme", "the chat screen's colours: `light`, dark, or auto (the terminal's background)", func(s string) error {
		c, err := theme.ParseChoice(s)
		if err != nil || s == "" {
			return errors.New("want light, dark or auto")
		}
		o.Theme = string(c)
		return nil
	})
	fs.BoolVar(&o.ScreenReader, "screen-reader", false, "write the chat screen as plain lines for a screen reader: nothing redrawn, every change said once")
	fs.Func("max-spend", "stop before today's spend, all sessions together, passes `USD` (e.g. 0.50)", func(s string) error {
		v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return errors.New("want an amount of US dollars such as 0.50")
		}
		o.MaxSpend = v
		return nil
	})
	fs.Func("max-tokens-session", "stop before this session's tokens, input and output, pass `N`", func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return errors.New("want a whole number of tokens such as 50000")
		}
		o.MaxTokensSession = v
		return nil
	})
	return fs
}

// parseFlags reads parley's flags and the question after them, and what stdin holds when it
// is not a terminal: the prompt in print mode without -p or a question, else text to send
// after the prompt. It returns flag.ErrHelp for -h, and a usageError for anything else amiss.
func parseFlags(ctx context.Context, args []string, ios *IO) (options, error) {
	var o options
	fs := flagSet(&o)
	words, err := parseInterspersed(fs, joinWait(args))
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, flagError(err)
	}
	if o.version {
		return o, nil
	}
	if o.cont && o.sessionID != "" {
		return o, usagef("-c and --session both choose a session: use one")
	}
	if o.prompts > 1 {
		return o, usagef("-p is given %d times and only one prompt is sent: give the whole prompt to one -p", o.prompts)
	}
	promptSet, printOnly := o.prompts == 1, ""
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "session" && o.sessionID == "":
			err = usagef("--session is empty: give a session's ID (parley sessions lists them), or leave --session out for a new session")
		case strings.HasPrefix(f.Usage, printModeUsage):
			printOnly = f.Name
		}
	})
	if err != nil {
		return o, err
	}
	question := strings.Join(words, " ")
	if o.print.Continue {
		return continueFlags(o, promptSet || question != "") // stdin is not read: a script's may be anything
	}
	if promptSet && question != "" {
		return o, usagef("both -p %q and the question %q: give the prompt once", o.prompt, question)
	}
	piped := !ios.InTerminal
	o.printMode = promptSet || piped
	if question != "" {
		o.prompt = question
	}
	if printOnly != "" && !o.printMode {
		return o, usagef("--%s is for print mode: add -p PROMPT", printOnly)
	}
	if piped {
		b, err := readAll(ctx, ios.In)
		if err != nil {
			return o, usagef("reading stdin: %v", err)
		}
		if promptSet || question != "" {
			o.piped = string(b)
		} else {
			o.prompt, o.promptPiped = string(b), true
		}
	}
	if o.printMode && strings.TrimSpace(o.prompt+o.piped) == "" && len(o.files) == 0 {
		return o, usagef("empty prompt: pass -p PROMPT or pipe the prompt on stdin")
	}
	return o, nil
}

// continueFlags checks --continue's flags: print mode on a session given by -c or --session,
// with no prompt, since what is sent is the cut reply to go on from.
func continueFlags(o options, prompted bool) (options, error) {
	switch {
	case !o.cont && o.sessionID == "":
		return o, usagef("--continue goes on from a session's cut reply: add -c (the latest session) or --session ID")
	case prompted || len(o.files) > 0:
		return o, usagef("--continue sends no prompt, only the cut reply to go on from: drop the prompt, or drop --continue")
	}
	o.printMode = true
	return o, nil
}

// flagError is the usage error for a mistake the flag package found in parley's flags.
func flagError(err error) error {
	// --wait takes an optional value, so the flag package calls it a boolean in its errors.
	msg := strings.Replace(err.Error(), "invalid boolean value", "invalid value", 1)
	// It writes an unknown flag as it was typed: written as text, whatever it holds.
	for _, typed := range []string{"flag provided but not defined: ", "bad flag syntax: "} {
		if name, ok := strings.CutPrefix(msg, typed); ok {
			msg = typed + sanitize.Name(name)
		}
	}
	return usagef("%s (see parley -h)", longFlag.ReplaceAllString(msg, " for --$1:"))
}

// longFlag is a flag of more than one letter as the flag package names it in an error
// ("for flag -timeout:"), with one dash where parley -h writes two.
var longFlag = regexp.MustCompile(` for (?:flag )?-(\w\w[\w-]*):`)

// defaultWait is how long --wait without a value waits in all.
const defaultWait = 30 * time.Minute

// waitFlag is --wait[=MAX]: a boolean flag that takes an optional duration.
type waitFlag struct{ d *time.Duration }

func (w *waitFlag) String() string {
	if w.d == nil || *w.d == 0 {
		return ""
	}
	return w.d.String()
}

func (w *waitFlag) Set(s string) error {
	if s == "true" {
		*w.d = defaultWait
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return errors.New("want a total wait such as 20s, 10m or 2h")
	}
	*w.d = d
	return nil
}

func (w *waitFlag) IsBoolFlag() bool { return true }

// joinWait reads `--wait MAX` as `--wait=MAX` when MAX is a duration: the flag package gives a
// boolean flag no separate value, and --wait alone still means defaultWait.
func joinWait(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--wait" || a == "-wait") && i+1 < len(args) {
			if _, err := time.ParseDuration(args[i+1]); err == nil {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// quietFlags is a subcommand's flag set: it reports errors to its caller, which prints
// the subcommand's usage, and prints nothing itself.
func quietFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseJSONFlag parses the args of the subcommand name, whose only flag is --json: its
// positional arguments, and whether --json was given.
func parseJSONFlag(name string, args []string) (pos []string, jsonOut bool, err error) {
	fs := quietFlags(name)
	j := fs.Bool("json", false, "")
	pos, err = parseInterspersed(fs, args)
	return pos, *j, err
}

// parseInterspersed parses a subcommand's flags, which may stand before or after its
// positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
