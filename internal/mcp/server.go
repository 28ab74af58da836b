package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os/exec"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one configured server and its life: at most one session at a time.
type server struct {
	cfg     Server
	log     *slog.Logger
	closing context.Context

	mu sync.Mutex
	st State
	// err says why the server is Stopped, as its next use says it; why is the cause alone
	// (an exit status and its stderr's last words), for the call it cut.
	err error
	why string
	// cs is the session while Running; ended is closed once it has ended and what its
	// process left is gone. started is closed when the start under way ends.
	cs      *sdk.ClientSession
	ended   chan struct{}
	started chan struct{}
}

// errorf is an error naming the server.
func (s *server) errorf(format string, args ...any) error {
	return fmt.Errorf("mcp server %q: "+format, append([]any{s.cfg.Name}, args...)...)
}

// fix is the end of an error that the server's settings may cause.
func (s *server) fix(key string) string {
	return fmt.Sprintf("check [mcp.%s] %s in config.toml", s.cfg.Name, key)
}

func (s *server) state() (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == Stopped {
		return s.st, s.err
	}
	return s.st, nil
}

// use returns the running session and its ended channel, starting the server when it has not
// been (or, with restart, when it is Stopped). Uses that arrive while a start is under way
// wait for it. A start abandoned through ctx leaves the server NotStarted, for the next use.
func (s *server) use(ctx context.Context, restart bool) (*sdk.ClientSession, <-chan struct{}, error) {
	for {
		s.mu.Lock()
		switch s.st {
		case Running:
			cs, ended := s.cs, s.ended
			s.mu.Unlock()
			return cs, ended, nil
		case Starting:
			started := s.started
			s.mu.Unlock()
			select {
			case <-started:
				continue
			case <-ctx.Done():
				return nil, nil, s.errorf("its start was abandoned: %w", ctx.Err())
			}
		case Stopped:
			if !restart || s.closing.Err() != nil {
				err := s.err
				s.mu.Unlock()
				return nil, nil, err
			}
		}
		s.st, s.started = Starting, make(chan struct{})
		started := s.started
		s.mu.Unlock()

		cs, proc, err := s.start(ctx)
		if err == nil && s.closing.Err() != nil {
			_ = cs.Close()
			err = s.errorf("parley closed it as it started: %w", context.Canceled)
		}

		s.mu.Lock()
		switch {
		case err == nil:
			s.st, s.cs, s.ended = Running, cs, make(chan struct{})
			go s.watch(cs, proc, s.ended)
		case ctx.Err() != nil && s.closing.Err() == nil:
			s.st = NotStarted
		default:
			s.st, s.err = Stopped, err
		}
		close(started)
		s.mu.Unlock()
		if err != nil {
			s.log.Info("mcp server did not start", "error", err)
			return nil, nil, err
		}
	}
}

// watch waits for the session cs to end, by the server's doing or Close's, and marks the
// server Stopped with why.
func (s *server) watch(cs *sdk.ClientSession, proc *process, ended chan struct{}) {
	err := cs.Wait()
	why := "it ended the session"
	if proc != nil {
		why = proc.ended()
	} else if err != nil {
		why = err.Error()
	}
	s.mu.Lock()
	if s.cs == cs {
		s.st, s.cs, s.why = Stopped, nil, why
		s.err = s.errorf("stopped (%s); it is not started again until asked", why)
		s.log.Warn("mcp server stopped", "why", why)
	}
	s.mu.Unlock()
	close(ended)
}

// stop closes the server for good (Close): a start under way is ended by closing, a session
// is closed and waited for.
func (s *server) stop() error {
	s.mu.Lock()
	for s.st == Starting {
		started := s.started
		s.mu.Unlock()
		<-started
		s.mu.Lock()
	}
	cs, ended := s.cs, s.ended
	s.st, s.cs, s.err = Stopped, nil, s.errorf("parley closed it")
	s.mu.Unlock()
	if cs == nil {
		return nil
	}
	err := cs.Close()
	<-ended
	if err != nil {
		return s.errorf("did not close cleanly: %v", err)
	}
	return nil
}

// list lists the server's tools, starting it when nothing has yet.
func (s *server) list(ctx context.Context) ([]*sdk.Tool, error) {
	cs, ended, err := s.use(ctx, false)
	if err != nil {
		return nil, err
	}
	var tools []*sdk.Tool
	bounded, cancel := s.bound(ctx)
	defer cancel()
	for t, err := range cs.Tools(bounded, nil) {
		if err != nil {
			return nil, s.failed(ctx, bounded, ended, "listing its tools", err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// call calls tool, starting the server when nothing has yet.
func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (Result, error) {
	cs, ended, err := s.use(ctx, false)
	if err != nil {
		return Result{}, err
	}
	bounded, cancel := s.bound(ctx)
	defer cancel()
	res, err := cs.CallTool(bounded, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return Result{}, s.failed(ctx, bounded, ended, fmt.Sprintf("the call to %q", tool), err)
	}
	return newResult(res), nil
}

// bound is ctx ended also by the server's timeout and by Close.
func (s *server) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	stop := context.AfterFunc(s.closing, cancel)
	return ctx, func() { stop(); cancel() }
}

// failed is the error of a request (what) made under ctx, bounded by bound, that did not
// complete with err; ended is the session's.
func (s *server) failed(ctx, bounded context.Context, ended <-chan struct{}, what string, err error) error {
	switch {
	case ctx.Err() != nil:
		return s.errorf("%s was cancelled: %w", what, ctx.Err())
	case s.closing.Err() != nil:
		return s.errorf("parley closed it during %s: %w", what, context.Canceled)
	case errors.Is(bounded.Err(), context.DeadlineExceeded):
		return s.errorf("%s got no answer within %v, so it was cancelled: raise timeout in [mcp.%s] if it needs longer: %w",
			what, s.timeout(), s.cfg.Name, context.DeadlineExceeded)
	case errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed):
		// The server went away; its exit status and last words come once its process is
		// waited for, which follows at once.
		select {
		case <-ended:
			s.mu.Lock()
			why := s.why
			s.mu.Unlock()
			return s.errorf("stopped during %s (%s); whether the tool did anything is not known", what, why)
		case <-time.After(2 * time.Second):
			return s.errorf("the connection ended during %s (%v)", what, err)
		}
	}
	return s.errorf("%s failed: %w", what, err)
}

// start connects to the server and runs MCP's initialize, within the start timeout. A stdio
// server's process is returned with the session, for the account of its end.
func (s *server) start(ctx context.Context) (*sdk.ClientSession, *process, error) {
	timeout := s.cfg.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer context.AfterFunc(s.closing, cancel)()
	// parley offers servers nothing of its own (no roots, sampling or elicitation): nothing of
	// the operator's would answer them. A filesystem server then keeps the directories its
	// command names, instead of waiting for roots.
	client := sdk.NewClient(&sdk.Implementation{Name: "parley", Version: version()},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}, Logger: s.log})
	if len(s.cfg.Command) > 0 {
		return s.startCommand(parent, ctx, client, timeout)
	}
	if s.cfg.URL == "" {
		return nil, nil, s.errorf("has neither command nor url: set one in [mcp.%s] in config.toml", s.cfg.Name)
	}
	cs, err := s.startHTTP(parent, ctx, client, timeout)
	return cs, nil, err
}

// startCommand runs the server's command and initializes a session over its stdio.
func (s *server) startCommand(parent, ctx context.Context, client *sdk.Client, timeout time.Duration) (*sdk.ClientSession, *process, error) {
	proc := newProcess(s.cfg, s.log)
	// A start that times out or is abandoned takes the process down with it.
	stop := context.AfterFunc(ctx, proc.kill)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: proc.cmd, TerminateDuration: closeGrace}, nil)
	if !stop() && err == nil {
		cs.Close()
		err = ctx.Err()
	}
	if err == nil {
		s.log.Info("mcp server started", "pid", proc.cmd.Process.Pid)
		return cs, proc, nil
	}
	proc.kill()
	command := s.cfg.Command[0]
	switch {
	case s.closing.Err() != nil:
		return nil, nil, s.errorf("parley closed it as it started: %w", context.Canceled)
	case parent.Err() != nil:
		return nil, nil, s.errorf("its start was abandoned: %w", parent.Err())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, nil, s.errorf("no answer to MCP's initialize within %v: is %q an MCP server on stdio? %s",
			timeout, command, s.fix("command"))
	case proc.cmd.Process == nil && (errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)):
		return nil, nil, s.errorf("command %q not found: %s", command, s.fix("command"))
	case proc.cmd.Process == nil:
		return nil, nil, s.errorf("command %q cannot be run (%v): %s", command, err, s.fix("command"))
	case proc.cmd.ProcessState != nil:
		return nil, nil, s.errorf("exited as it started (%s): %s", proc.ended(), s.fix("command"))
	}
	return nil, nil, s.errorf("failed MCP's initialize: %v", err)
}

// startHTTP initializes a session with the server at its URL.
func (s *server) startHTTP(parent, ctx context.Context, client *sdk.Client, timeout time.Duration) (*sdk.ClientSession, error) {
	at := s.cfg.URL
	if u, err := url.Parse(at); err == nil {
		at = u.Redacted()
	}
	transport := &sdk.StreamableClientTransport{Endpoint: s.cfg.URL,
		HTTPClient: &http.Client{Transport: headerTransport{s.cfg.Headers, http.DefaultTransport}}}
	cs, err := client.Connect(ctx, transport, nil)
	switch {
	case err == nil:
		s.log.Info("mcp server started", "url", at)
		return cs, nil
	case s.closing.Err() != nil:
		return nil, s.errorf("parley closed it as it started: %w", context.Canceled)
	case parent.Err() != nil:
		return nil, s.errorf("its start was abandoned: %w", parent.Err())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, s.errorf("no answer from %s within %v: is it up? %s", at, timeout, s.fix("url"))
	case errors.Is(err, syscall.ECONNREFUSED):
		return nil, s.errorf("nothing is listening at %s (connection refused): is the server running? %s", at, s.fix("url"))
	}
	return nil, s.errorf("cannot start a session at %s: %v: %s", at, err, s.fix("url and headers"))
}

// headerTransport sends a server's configured headers with every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.next.RoundTrip(r)
}

// timeout is the server's call timeout.
func (s *server) timeout() time.Duration {
	if s.cfg.Timeout > 0 {
		return s.cfg.Timeout
	}
	return DefaultCallTimeout
}

// version is parley's, as the build stamped it, for initialize's clientInfo.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return "(devel)"
}

// closeGrace is how long closing waits for a stdio server to exit once its input is closed,
// and again once it is sent SIGTERM, before it is killed: a server still at a call that was
// cancelled, one that ignores notifications/cancelled, would hold parley's quit for the SDK's
// 5 s otherwise.
const closeGrace = 2 * time.Second

// process is a stdio server's process.
type process struct {
	cmd    *exec.Cmd
	stderr *stderrLog
	// kill ends the process's context: exec then kills its process group.
	kill context.CancelFunc
}

// newProcess prepares cfg's command: cfg's environment and no other, stderr to log,
// in a process group of its own. The group keeps the terminal's ctrl+c for parley (print mode
// cancels the call, and the server is told so through MCP), and lets a kill reach what the
// command started (npx's node).
func newProcess(cfg Server, log *slog.Logger) *process {
	life, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, cfg.Command[0], cfg.Command[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Wait reads stderr to its end, which a child the server left behind may hold off.
	cmd.WaitDelay = time.Second
	cmd.Env = []string{} // not nil, which would hand the server all of parley's environment
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
	}
	p := &process{cmd: cmd, stderr: &stderrLog{log: log}, kill: kill}
	cmd.Stderr = p.stderr
	return p
}

// ended accounts for the end of a process that has been waited for, and kills what it left
// in its group.
func (p *process) ended() string {
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	p.kill()
	p.stderr.flush()
	why := "its process ended"
	if ps := p.cmd.ProcessState; ps != nil {
		why = ps.String()
	}
	if words := p.stderr.lastWords(); words != "" {
		why += fmt.Sprintf(", stderr: %q", words)
	}
	return why
}
