// Package demo runs parley's offline demo endpoint: an OpenAI-compatible chat server on
// 127.0.0.1, inside the parley process, that streams plausible replies and can be told to
// misbehave. New users talk to it when no endpoint is configured, and parley's own tests use
// it as a fault-injecting, request-counting fake server.
//
// It speaks the Chat Completions wire format by hand, byte for byte, so what parley's client
// reads from it is what it would read from a real endpoint.
package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"parley/internal/chat"
)

// DefaultModel is the model the demo endpoint lists and answers as.
const DefaultModel = "parley-demo"

// DefaultPace is the delay between two content chunks that reads as a model typing.
const DefaultPace = 25 * time.Millisecond

// Options configures a demo Server. The zero value is valid: a random loopback port, no
// delay between chunks, replies that answer the question.
type Options struct {
	// Addr is the address to listen on; it must be a loopback address. Default "127.0.0.1:0".
	Addr string
	// Pace is the delay before each chunk of text, thinking included unless a fault's ThinkFor
	// times it; 0 streams as fast as possible.
	Pace time.Duration
	// Tokens, when positive, makes every reply exactly Tokens content chunks of generated
	// markdown, whatever was asked (for benchmarks).
	Tokens int
	// OpenCode makes the generated reply open a code block early and run on inside it to
	// the end, as a model writing one long file does.
	OpenCode bool
	// Model is the model listed by GET /v1/models. Default DefaultModel.
	Model string
	// MoreModels are listed after Model, for clients that must choose among several.
	MoreModels []string
	// ServedModel, when set, is the model every reply names, whatever was asked: a provider
	// answering with a dated snapshot, or a router with the model it chose.
	ServedModel string
	// NoVision makes the demo a model without vision as llama-server serves one without a
	// projector: GET /props says vision is false, and a request with images gets the 500 in
	// its words. Otherwise the demo takes images and says what arrived.
	NoVision bool
	// Clock paces chunks and times delays and stalls. Default chat.SystemClock.
	Clock chat.Clock
	// ContextTokens, when positive, is a context budget: a prompt of more tokens than this
	// (counted as the usage counts them) is rejected in the Overflow form instead of
	// answered. Queued faults still come first. SetContext changes both while serving.
	ContextTokens int
	// Overflow is the form of that rejection. Default OverflowOpenAI.
	Overflow Overflow
	// Window, when positive, is the context window the demo says its model has, where
	// llama-server says its n_ctx: GET /props default_generation_settings and GET /v1/models
	// meta. It rejects nothing; ContextTokens does.
	Window int
}

// Message is one chat message of a received request: its text, and the images it carried.
type Message struct {
	Role    string  `json:"role"`
	Content string  `json:"content"`
	Images  []Image `json:"images,omitempty"`
	// ToolCalls are the calls an assistant message carried back; ToolCallID the call a tool
	// message is the result of.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Request is a chat completion request as the server received it.
type Request struct {
	Time time.Time `json:"time"`
	// Header and Body are kept for in-process tests only: the header may carry an API key, so
	// neither is served by the control endpoints.
	Header http.Header `json:"-"`
	Body   []byte      `json:"-"`
	// Messages are decoded from Body; nil when Body is not a valid request.
	Messages []Message `json:"messages"`
	// Tools are the names of the functions the request offered.
	Tools []string `json:"tools,omitempty"`
}

// Server is a running demo endpoint. Its methods are safe for concurrent use.
type Server struct {
	opts   Options
	ln     net.Listener
	srv    *http.Server
	tokens []string // the generated reply when opts.Tokens > 0

	mu       sync.Mutex
	idle     *sync.Cond // signalled when active drops
	active   int        // handlers running; Close waits for it to reach 0
	closed   bool       // set by Close; no handler starts after it
	faults   []Fault    // queued faults, consumed from the front, one per chat request
	received []Request
}

// Start listens on opts.Addr and serves the demo endpoint until Close.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	if opts.Clock == nil {
		opts.Clock = chat.SystemClock{}
	}
	// The demo takes any key and lets anyone queue faults: keep it off the network.
	if err := checkLoopback(opts.Addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("demo endpoint: %w", err)
	}
	s := &Server{opts: opts, ln: ln}
	s.idle = sync.NewCond(&s.mu)
	if opts.Tokens > 0 {
		s.tokens = syntheticTokens(opts.Tokens, opts.OpenCode)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("GET /props", s.serveProps)
	mux.HandleFunc("GET /_demo/requests", s.serveRequests)
	mux.HandleFunc("POST /_demo/faults", s.serveFaults)
	mux.HandleFunc("POST /_demo/command", s.serveCommand)
	s.srv = &http.Server{Handler: s.track(mux), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("demo endpoint: bad address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("demo endpoint: address %q is not loopback; use 127.0.0.1:PORT", addr)
}

// track counts running handlers so Close can wait for them.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			http.Error(w, "demo endpoint closed", http.StatusServiceUnavailable)
			return
		}
		s.active++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.active--
			s.idle.Broadcast()
			s.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// URL returns the base URL clients use, "http://127.0.0.1:PORT/v1".
func (s *Server) URL() string {
	return "http://" + s.ln.Addr().String() + "/v1"
}

// Close stops the server, ends every open response (stalls and delays included), and waits
// for their handlers to return.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	err := s.srv.Close()
	s.mu.Lock()
	for s.active > 0 {
		s.idle.Wait()
	}
	s.mu.Unlock()
	return err
}

// Requests returns the number of chat completion requests received so far.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.received)
}

// Received returns the chat completion requests received so far, oldest first.
func (s *Server) Received() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.received...)
}

// Push queues faults. Each chat completion request takes the next one; with the queue empty
// a request gets a normal reply. It panics on a fault with an unknown Think shape.
func (s *Server) Push(f ...Fault) {
	for _, ff := range f {
		if err := ff.check(); err != nil {
			panic("demo: " + err.Error())
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// Reset clears the queued faults.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// record stores a received request and takes the fault it is to get. seq numbers the
// request from 1.
func (s *Server) record(r *http.Request, body []byte, req chatRequest) (f Fault, seq int) {
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = append(s.received, Request{
		Time:     s.opts.Clock.Now(),
		Header:   r.Header.Clone(),
		Body:     body,
		Messages: req.Messages,
		Tools:    tools,
	})
	if len(s.faults) > 0 {
		f = s.faults[0]
		s.faults = s.faults[1:]
	}
	return f, len(s.received)
}

// chatRequest is the part of a chat completion request the demo reads.
type chatRequest struct {
	Model         string    `json:"model"`
	Messages      []Message `json:"messages"`
	Stream        bool      `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away while sending
	}
	var req chatRequest
	decodeErr := json.Unmarshal(body, &req)
	if decodeErr != nil {
		req = chatRequest{} // a half-decoded body says nothing reliable
	}
	f, seq := s.record(r, body, req)
	if f.normal() && decodeErr == nil {
		if o, over := s.overflow(req.Messages); over {
			f = o
		}
		if s.opts.NoVision && hasImages(req.Messages) {
			refuseImages(w)
			return
		}
	}
	if f.Delay > 0 && !s.wait(r.Context(), f.Delay) {
		return
	}
	if f.Status == 0 {
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
	}
	switch {
	case f.Reset:
		abort(w, true)
	case f.Status != 0:
		writeStatus(w, f)
	case f.Stream != "":
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		io.WriteString(w, f.Stream)
	case f.Stall:
		s.stall(w, r)
	case decodeErr != nil:
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+decodeErr.Error(), "invalid_request_error")
	default:
		s.reply(w, r, req, seq, f)
	}
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	var data []map[string]any
	for _, id := range append([]string{s.opts.Model}, s.opts.MoreModels...) {
		model := map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "parley"}
		if s.opts.Window > 0 {
			model["meta"] = map[string]any{"n_ctx": s.opts.Window}
		}
		data = append(data, model)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) serveRequests(w http.ResponseWriter, r *http.Request) {
	reqs := s.Received()
	writeJSON(w, http.StatusOK, struct {
		Count    int       `json:"count"`
		Requests []Request `json:"requests"`
	}{len(reqs), reqs})
}

func (s *Server) serveFaults(w http.ResponseWriter, r *http.Request) {
	var faults []Fault
	if err := json.NewDecoder(r.Body).Decode(&faults); err != nil {
		http.Error(w, "want a JSON array of faults: "+err.Error(), http.StatusBadRequest)
		return
	}
	for i, f := range faults {
		if err := f.check(); err != nil {
			http.Error(w, fmt.Sprintf("fault %d: %v", i, err), http.StatusBadRequest)
			return
		}
	}
	s.Push(faults...)
	fmt.Fprintf(w, "queued %s\n", counted(len(faults), "fault"))
}

func (s *Server) serveCommand(w http.ResponseWriter, r *http.Request) {
	args, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	out, err := s.Command(string(args))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	io.WriteString(w, out+"\n")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// writeError replies with an error in the OpenAI error envelope.
func writeError(w http.ResponseWriter, status int, message, typ string) {
	type apiError struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{apiError{Message: message, Type: typ}})
}

// abort drops the connection without completing the response. With reset it goes at once,
// as a TCP RST (SO_LINGER 0); otherwise what was written so far is sent, then a plain close.
func abort(w http.ResponseWriter, reset bool) {
	rc := http.NewResponseController(w)
	if !reset {
		rc.Flush()
	}
	conn, _, err := rc.Hijack()
	if err != nil {
		// The connection cannot be taken over; the server still drops it on this panic.
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

// writeStatus replies with a fault's status, headers and body as they are. A Content-Length
// among the headers is left to the server (a copied one may not match the body), and no
// Content-Type is made up when the fault has none.
func writeStatus(w http.ResponseWriter, f Fault) {
	h := w.Header()
	for k, v := range f.Header {
		if strings.EqualFold(k, "Content-Length") {
			continue
		}
		h.Set(k, v)
	}
	if h.Get("Content-Type") == "" {
		h["Content-Type"] = nil
	}
	w.WriteHeader(f.Status)
	io.WriteString(w, f.Body)
}
