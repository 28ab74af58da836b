package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/config"
	"parley/internal/printmode"
	"parley/internal/sanitize"
	"parley/tui"
	"parley/tui/notify"
	"parley/tui/theme"
)

// converse is parley without a subcommand: print mode when a prompt was given or piped,
// otherwise the chat screen.
func converse(ctx context.Context, args []string, ios *IO) (int, error) {
	o, err := parseFlags(ctx, args, ios)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(ios.Out)
		return chat.ExitOK, nil
	}
	if err != nil {
		return chat.ExitUsage, err
	}
	if o.version {
		fmt.Fprintln(ios.Out, versionLine())
		return chat.ExitOK, nil
	}
	a, sess, err := openApp(ctx, o, ios)
	if err != nil {
		return chat.ExitUsage, err
	}
	defer a.close()
	// Attachments are read before anything is stored: one that is refused stores and sends
	// nothing.
	files, err := readAttachments(o.files, a.attach)
	if err == nil && o.piped != "" {
		o.piped, files, err = pipedAttachment(o.piped, files, a.attach)
	}
	if err == nil && o.promptPiped {
		o.prompt, files, err = pipedAttachment(o.prompt, files, a.attach)
	}
	if err != nil {
		return chat.ExitUsage, err
	}
	for _, f := range files {
		if f.Image != nil && f.Image.Scaled() != "" {
			fmt.Fprintf(ios.ErrOut, "parley: %s\n", f.Image.Scaled())
		}
	}
	if o.printMode {
		ctx, stop := printmode.WithTimeout(ctx, ios.Clock, o.timeout)
		defer stop()
		if a.needsModel {
			if code, err := a.modelForPrint(ctx, ios, o.print.Wait, o.print.JSON); code != chat.ExitOK || err != nil {
				return code, err
			}
		}
		o.print.Images = attach.Images(files)
		if ios.OutTerminal && !o.raw {
			// Rendered as the chat screen sets a reply: no wider than its reading width.
			o.print.RenderWidth = min(cmp.Or(ios.OutColumns, 80), cmp.Or(a.readingWidth, tui.DefaultReadingWidth))
		}
		return printReply(ctx, a, sess, attach.Compose(o.prompt, o.piped, files), o.print, ios), nil
	}
	if addr := ios.Getenv("PARLEY_PPROF"); addr != "" {
		if err := servePprof(addr); err != nil {
			return chat.ExitUsage, err
		}
	}
	return chatScreen(ctx, a, sess, o.prompt, files, ios)
}

// pipedAttachment checks what stdin held: an image (cat photo.png | parley -p describe) joins
// files and leaves no text; text is kept as it is.
func pipedAttachment(piped string, files []attach.File, lim attach.Limits) (string, []attach.File, error) {
	if _, ok := attach.ImageType([]byte(piped)); !ok {
		return piped, files, attach.Check("stdin", []byte(piped), lim.Text)
	}
	im, err := attach.PrepareImage("stdin", []byte(piped), lim.Image)
	if err != nil {
		return "", nil, err
	}
	return "", append(files, attach.File{Path: "stdin", Image: &im}), nil
}

// readAttachments reads the files to attach, stopping at the first that is refused.
func readAttachments(paths []string, limit attach.Limits) ([]attach.File, error) {
	var files []attach.File
	for _, p := range paths {
		f, err := attach.Read(p, limit)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// printReply is print mode on the app's history and endpoints, with po's flags.
func printReply(ctx context.Context, a *app, sess stored.Session, prompt string, po printmode.Options, ios *IO) int {
	po.DB, po.Client, po.Fallback, po.Spend, po.Tools = a.db, a.client, a.fallback, a.spend, a.tools
	po.Session, po.Prompt, po.Clock = sess, prompt, ios.Clock
	po.System, po.SystemExplicit = stored.SystemPrompt{Role: a.system.Role, Text: a.system.Text}, a.system.Explicit
	po.Stdout, po.Stderr, po.StdoutTerminal, po.StderrTerminal = ios.Out, ios.ErrOut, ios.OutTerminal, ios.ErrTerminal
	return printmode.Run(ctx, po)
}

// chatScreen runs the chat screen on sess until the operator quits. question, when set, is
// sent as soon as the session is open, with files attached; files alone wait for the first
// message.
func chatScreen(ctx context.Context, a *app, sess stored.Session, question string, files []attach.File, ios *IO) (int, error) {
	var choose []string
	var problem string
	if a.needsModel {
		choose, problem = a.modelForScreen(ctx, ios)
	}
	// Each session the screen sends in is marked for its -c (history.LatestInteractive).
	a.db.SetInteractive()
	o := tui.Options{DB: a.db, Client: a.client, ChooseModel: choose, ModelProblem: problem, Fallback: a.fallback, Others: a.others, Session: sess, Clock: ios.Clock, Spend: a.spend, Tools: a.tools,
		System:         stored.SystemPrompt{Role: a.system.Role, Text: a.system.Text},
		SystemExplicit: a.system.Explicit, Roles: screenRoles(a.roles), AttachLimits: a.attach,
		ReadingWidth: a.readingWidth, Mouse: a.mouse, Send: question, Attachments: files, PasteGap: tui.DefaultPasteGap, Chosen: a.chosen,
		Theme: theme.Choice(a.theme), ColorFGBG: ios.Getenv("COLORFGBG"), Notify: notify.Kind(a.notify)}
	if a.demo != nil {
		o.Demo = a.demo
	}
	// The screen draws with sequences of its own and neutralises every text it shows.
	out := sanitize.Raw(ios.Out)
	if a.screenReader {
		return runScreen(ctx, tui.NewReader(o, out), out, ios, true)
	}
	return runScreen(ctx, tui.New(o), out, ios, false)
}

// runScreen runs m, the chat screen drawing to out (ios.Out), until it quits or ctx stops it;
// screenReader runs it without a renderer (tui.Reader). A panic inside the screen fails with
// exit status 1 once the terminal is given back: Bubble Tea reports it as a kill, which
// would otherwise pass for a quit.
func runScreen(ctx context.Context, m tea.Model, out io.Writer, ios *IO, screenReader bool) (int, error) {
	opts := []tea.ProgramOption{tea.WithoutSignalHandler(), tea.WithInput(ios.In), tea.WithOutput(out)}
	if screenReader {
		restore, err := keysOneByOne(ios)
		if err != nil {
			return chat.ExitFailed, err
		}
		defer restore()
		// Nothing is drawn, so nothing is set in the terminal to give back at exit.
		opts = append(opts, tea.WithoutRenderer(), tea.WithWindowSize(cmp.Or(ios.OutColumns, 80), 24))
	} else {
		// The terminal's title is kept on its stack while the screen sets its own, and given
		// back with the modes the screen set however it ends: Bubble Tea has put the terminal
		// back (or recovered a panic) by the time this deferred write runs, and a panic outside
		// it unwinds through here.
		_, _ = io.WriteString(out, notify.Start)
		defer func() { _, _ = io.WriteString(out, notify.Exit) }()
	}
	p := tea.NewProgram(m, opts...)
	// A signal stops the screen as /quit does, after the reply being written is stored as
	// cancelled; Bubble Tea's own handler would quit at once and leave it running.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			p.Send(tui.Stop())
			select {
			case <-time.After(stopPatience):
				p.Kill() // storing the end hangs (another parley's lock): go anyway
			case <-done:
			}
		case <-done:
		}
	}()
	_, err := p.Run()
	switch {
	case errors.Is(err, tea.ErrProgramPanic):
		return chat.ExitFailed, errors.New("the chat screen stopped on an error of parley's own (above); what was stored is kept")
	case err != nil && !errors.Is(err, tea.ErrProgramKilled):
		return chat.ExitFailed, err
	}
	if ctx.Err() != nil {
		return chat.ExitInterrupted, nil
	}
	return chat.ExitOK, nil
}

// keysOneByOne puts the terminal that is ios.In into the mode Bubble Tea's renderer would:
// keys as they are pressed, unechoed, ctrl+c a key, but keeps its output processing, so that
// the screen-reader mode's lines end with a plain line feed as any program's do. It returns
// what gives the terminal back its mode; with no terminal there is nothing to do.
func keysOneByOne(ios *IO) (restore func(), err error) {
	f, ok := ios.In.(interface{ Fd() uintptr })
	if !ok || !ios.InTerminal {
		return func() {}, nil
	}
	was, err := term.MakeRaw(f.Fd())
	if err != nil {
		return nil, fmt.Errorf("the terminal cannot take keys one by one: %w", err)
	}
	raw, err := term.GetState(f.Fd())
	if err == nil {
		raw.Oflag = was.Oflag
		err = term.SetState(f.Fd(), raw)
	}
	if err != nil {
		_ = term.Restore(f.Fd(), was)
		return nil, fmt.Errorf("the terminal cannot take keys one by one: %w", err)
	}
	return func() { _ = term.Restore(f.Fd(), was) }, nil
}

// stopPatience is how long the chat screen may take to store a stopped reply after a signal.
const stopPatience = 15 * time.Second

// screenRoles are the configured roles as the chat screen's /role chooses from them.
func screenRoles(roles map[string]config.Role) map[string]tui.Role {
	out := make(map[string]tui.Role, len(roles))
	for name, r := range roles {
		out[name] = tui.Role{Name: r.Name, System: r.System, Profile: r.Profile, Model: r.Model}
	}
	return out
}
