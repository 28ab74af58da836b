package config

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"parley/internal/attach"
	"parley/internal/chat"
	"parley/retry"
)

// file is config.toml.
type file struct {
	// Profile names the profile used when no --profile flag is given.
	Profile  string             `toml:"profile"`
	Profiles map[string]profile `toml:"profiles"`
	// Limits apply to every profile, unless the profile sets its own.
	Limits limits `toml:"limits"`
	// Roles are named system prompts, beside those of the role files.
	Roles map[string]roleTable `toml:"roles"`
	// MaxAttachmentBytes is the largest text file parley attaches, MaxImageBytes the largest
	// image; 0: attach.DefaultLimits.
	MaxAttachmentBytes int64 `toml:"max_attachment_bytes"`
	MaxImageBytes      int64 `toml:"max_image_bytes"`
	// ReadingWidth caps the columns replies are set in; 0: the screen's default (100).
	ReadingWidth int `toml:"reading_width"`
	// Mouse captures the mouse on the chat screen: the wheel scrolls, selecting takes shift.
	Mouse bool `toml:"mouse"`
	// Theme is the chat screen's palette: light, dark, or auto (the terminal's background).
	Theme string `toml:"theme"`
	// Notify is how the chat screen says a long reply ended while the terminal was not
	// looked at: bell, osc9 or off.
	Notify string `toml:"notify"`
	// ScreenReader writes the chat screen as plain lines for a screen reader, nothing redrawn.
	ScreenReader bool `toml:"screen_reader"`
	// Classify are the operator's classification rules, tried in order before the built-in
	// ones.
	Classify []classifyRule `toml:"classify"`
	// MCP are the tool servers, by name: [mcp.NAME].
	MCP map[string]mcpTable `toml:"mcp"`
}

// classifyRule is one [[classify]] table: what a failure must show (any of status, code,
// type and a message pattern) and what it then is.
type classifyRule struct {
	Name      string `toml:"name"`
	Status    int    `toml:"status"`
	Code      string `toml:"code"`
	Type      string `toml:"type"`
	Message   string `toml:"message"`
	Class     string `toml:"class"`
	Retryable *bool  `toml:"retryable"`
	Wait      string `toml:"wait"`
}

// rules compiles the [[classify]] tables; the first that is wrong stops parley, named.
func (f file) rules(path string) ([]retry.UserRule, error) {
	var out []retry.UserRule
	for i, c := range f.Classify {
		r, err := retry.NewUserRule(c.Name, c.Status, c.Code, c.Type, c.Message, c.Class, c.Retryable, c.Wait)
		if err != nil {
			return nil, fmt.Errorf("config %s: [[classify]] number %d: %v; fix the file (it was not changed)", path, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// profile is one named endpoint in config.toml; the presets, the environment and the flags
// are layers of the same shape.
type profile struct {
	Preset    string            `toml:"preset"`
	BaseURL   string            `toml:"base_url"`
	Model     string            `toml:"model"`
	APIKeyEnv string            `toml:"api_key_env"`
	Headers   map[string]string `toml:"headers"`
	// RouteKey tells this profile's route from another's on the same URL, model and key
	// variable, for a gateway that routes by what parley does not read.
	RouteKey          string   `toml:"route_key"`
	ConnectTimeout    duration `toml:"connect_timeout"`
	HeaderTimeout     duration `toml:"header_timeout"`
	FirstDeltaTimeout duration `toml:"first_delta_timeout"`
	StreamIdleTimeout duration `toml:"stream_idle_timeout"`
	// Reasoning says whether the model thinks before it answers; unset, its name decides.
	Reasoning *bool `toml:"reasoning"`
	// SendReasoning sends stored thinking back with earlier replies (some providers need it).
	SendReasoning *bool `toml:"send_reasoning"`
	// MaxTokens limits a reply, thinking included; ReasoningEffort is low, medium or high.
	MaxTokens       int    `toml:"max_tokens"`
	ReasoningEffort string `toml:"reasoning_effort"`
	// Temperature and TopP are sampling settings sent as they are.
	Temperature *float64 `toml:"temperature"`
	TopP        *float64 `toml:"top_p"`
	// Fallback names the profile the operator may send a retry to instead (f on the banner).
	Fallback string `toml:"fallback"`
	// Role names the role whose system prompt new sessions start with, when no --role is given.
	Role string `toml:"role"`
	// PriceInput and PriceOutput are what the profile's model costs, in US dollars per
	// million input and output tokens; unset, the model's preset price (if any) applies.
	PriceInput  *float64 `toml:"price_input"`
	PriceOutput *float64 `toml:"price_output"`
	// ContextWindow is the model's context window in tokens, for a server that does not say
	// it; set, parley compacts before sending. ContextTokens is its older name, still read.
	ContextWindow int `toml:"context_window"`
	ContextTokens int `toml:"context_tokens"`
	// Vision says whether the model takes images, over what the server says of it.
	Vision *bool `toml:"vision"`
	// Prefill says whether the server continues a final assistant message as its own text
	// (going on from a cut reply), over what parley finds out.
	Prefill *bool `toml:"prefill"`
	// Tools are the tools on from the start of a session: a server's name (all its tools)
	// or SERVER.TOOL. The others are offered in /tools, off.
	Tools []string `toml:"tools"`
	// A profile's own spend limits override those of the [limits] table.
	limits
	// fromKey is set on the resolved profile when OPENAI_API_KEY alone chose OpenAI: nothing
	// configured an endpoint. It is never read from the file.
	fromKey bool
}

// limits are spend limits, per session and per calendar day, in US dollars and in tokens.
// Zero or absent sets no limit.
type limits struct {
	MaxSpendSession  float64 `toml:"max_spend_session"`
	MaxSpendDay      float64 `toml:"max_spend_day"`
	MaxTokensSession int     `toml:"max_tokens_session"`
	MaxTokensDay     int     `toml:"max_tokens_day"`
}

// duration reads a TOML string such as "30s" as a time.Duration.
type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration like 30s or 2m", b)
	}
	if v < 0 {
		return fmt.Errorf("%q is negative; use a duration like 30s or 2m", b)
	}
	d.Duration = v
	return nil
}

// MaxConfigBytes bounds config.toml: a config is a few KiB, and a file far past that is
// something else written there, not worth holding in memory.
const MaxConfigBytes = 1 << 20

var errTooLarge = errors.New("it is larger than 1 MiB; a config is a few KiB: check what was written there")

// load reads config.toml at path and checks it; a missing file is an empty config.
func load(path string) (file, error) {
	var f file
	b, err := readConfig(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("cannot read config %s: %v", path, err)
	}
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return f, fmt.Errorf("config %s line %d: %s; fix the file (it was not changed)", path, perr.Position.Line, perr.Message)
		}
		return f, fmt.Errorf("config %s: %v; fix the file (it was not changed)", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		key := undecoded[0]
		if len(key) == 3 && key[0] == "profiles" && key[2] == "api_key" {
			return f, fmt.Errorf("config %s: profile %q: api_key is not read: keys are read from the environment variable api_key_env names, like api_key_env = \"OPENAI_API_KEY\"; move the key there and remove the line (the file was not changed)", path, key[1])
		}
		if near, ok := chat.Nearest(key[len(key)-1], keysAt(reflect.TypeFor[file](), key[:len(key)-1])); ok {
			return f, fmt.Errorf("config %s: unknown key %q — did you mean %s? Fix the file (it was not changed)", path, key.String(), near)
		}
		return f, fmt.Errorf("config %s: unknown key %q; fix the file (it was not changed)", path, key.String())
	}
	if f.MaxAttachmentBytes < 0 {
		return f, fmt.Errorf("config %s: max_attachment_bytes is %d; use a size in bytes above 0 (leave it out for %d)", path, f.MaxAttachmentBytes, attach.DefaultLimits.Text)
	}
	if f.MaxImageBytes < 0 {
		return f, fmt.Errorf("config %s: max_image_bytes is %d; use a size in bytes above 0 (leave it out for %d)", path, f.MaxImageBytes, attach.DefaultLimits.Image)
	}
	if f.ReadingWidth < 0 || (f.ReadingWidth > 0 && f.ReadingWidth < 20) {
		return f, fmt.Errorf("config %s: reading_width is %d; use 20 columns or more (leave it out for 100)", path, f.ReadingWidth)
	}
	if !oneOf(f.Theme, "", "light", "dark", "auto") {
		return f, fmt.Errorf("config %s: theme is %q; use light, dark or auto (leave it out for auto)", path, f.Theme)
	}
	if !oneOf(f.Notify, "", "bell", "osc9", "off") {
		return f, fmt.Errorf("config %s: notify is %q; use bell, osc9 or off (leave it out for bell)", path, f.Notify)
	}
	if err := f.Limits.check(); err != nil {
		return f, fmt.Errorf("config %s: [limits]: %v; fix the file (it was not changed)", path, err)
	}
	for name, p := range f.Profiles {
		// A headers written as a string decodes to no headers at all, without an error.
		if md.IsDefined("profiles", name, "headers") && md.Type("profiles", name, "headers") != "Hash" {
			return f, fmt.Errorf(`config %s: profile %q: headers must be a table, like headers = { "X-Org" = "…" }; fix the file (it was not changed)`, path, name)
		}
		for key, v := range map[string]string{"base_url": p.BaseURL, "model": p.Model, "api_key_env": p.APIKeyEnv} {
			// An empty value would silently take the default's: another server, paid for.
			if v == "" && md.IsDefined("profiles", name, key) {
				return f, fmt.Errorf("config %s: profile %q: %s is empty, which would send to the default's instead; set it or remove the line (the file was not changed)", path, name, key)
			}
		}
		if p.Preset != "" {
			if _, ok := presets[p.Preset]; !ok {
				return f, fmt.Errorf("config %s: profile %q: unknown preset %q (known: %s)", path, name, p.Preset, presetNames())
			}
		}
		if err := p.check(); err != nil {
			return f, fmt.Errorf("config %s: profile %q: %v; fix the file (it was not changed)", path, name, err)
		}
	}
	return f, f.checkMCP(path, md)
}

// check refuses settings that cannot be meant, or that HTTP would refuse only when the first
// message is sent: a negative or non-finite number, a header a request cannot carry.
func (p profile) check() error {
	for key, v := range map[string]*float64{"price_input": p.PriceInput, "price_output": p.PriceOutput,
		"temperature": p.Temperature, "top_p": p.TopP} {
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			return fmt.Errorf("%s is %v; use a finite number", key, *v)
		}
	}
	for key, v := range map[string]*float64{"price_input": p.PriceInput, "price_output": p.PriceOutput} {
		if v != nil && *v < 0 {
			return fmt.Errorf("%s is %v; a price is at least 0", key, *v)
		}
	}
	if err := CheckHeaders(p.Headers); err != nil {
		return err
	}
	if err := CheckEnvName("api_key_env", p.APIKeyEnv); err != nil {
		return err
	}
	if p.ContextWindow < 0 {
		return fmt.Errorf("context_window is %d; a context window is at least 1 token", p.ContextWindow)
	}
	if p.ContextTokens < 0 {
		return fmt.Errorf("context_tokens is %d; a context window is at least 1 token", p.ContextTokens)
	}
	if p.ContextWindow > 0 && p.ContextTokens > 0 && p.ContextWindow != p.ContextTokens {
		return fmt.Errorf("context_window is %d and context_tokens %d; keep context_window alone", p.ContextWindow, p.ContextTokens)
	}
	if p.MaxTokens < 0 {
		return fmt.Errorf("max_tokens is %d; a reply needs at least 1 token (leave it out for no limit)", p.MaxTokens)
	}
	switch p.ReasoningEffort {
	case "", "minimal", "low", "medium", "high":
	default:
		return fmt.Errorf("reasoning_effort is %q; use low, medium or high", p.ReasoningEffort)
	}
	if t := p.Temperature; t != nil && (*t < 0 || *t > 2) {
		return fmt.Errorf("temperature is %v; use a number from 0 to 2", *t)
	}
	if t := p.TopP; t != nil && (*t <= 0 || *t > 1) {
		return fmt.Errorf("top_p is %v; use a number above 0, at most 1", *t)
	}
	return p.limits.check()
}

func (l limits) check() error {
	for key, v := range map[string]float64{"max_spend_session": l.MaxSpendSession, "max_spend_day": l.MaxSpendDay} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %v; use a finite amount of US dollars", key, v)
		}
	}
	for key, v := range map[string]float64{
		"max_spend_session": l.MaxSpendSession, "max_spend_day": l.MaxSpendDay,
		"max_tokens_session": float64(l.MaxTokensSession), "max_tokens_day": float64(l.MaxTokensDay),
	} {
		if v < 0 {
			return fmt.Errorf("%s is %v; a limit is at least 0 (0 sets none)", key, v)
		}
	}
	return nil
}

// over returns l with every limit that o sets put in its place.
func (l limits) over(o limits) limits {
	override(&l.MaxSpendSession, o.MaxSpendSession)
	override(&l.MaxSpendDay, o.MaxSpendDay)
	override(&l.MaxTokensSession, o.MaxTokensSession)
	override(&l.MaxTokensDay, o.MaxTokensDay)
	return l
}

// keysAt returns the keys the table at path may hold (path is a key without its last part,
// such as profiles.work), read from the toml tags of t, the type config.toml decodes into:
// what an unknown key there may be a mistyping of.
func keysAt(t reflect.Type, path []string) []string {
	for {
		for t.Kind() == reflect.Slice { // an array of tables: [[classify]]
			t = t.Elem()
		}
		if t.Kind() == reflect.Map && len(path) > 0 { // path[0] names a profile or a role
			t, path = t.Elem(), path[1:]
			continue
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		fields := map[string]reflect.Type{}
		for _, f := range reflect.VisibleFields(t) { // a profile's limits are its own keys
			if tag, _, _ := strings.Cut(f.Tag.Get("toml"), ","); tag != "" {
				fields[tag] = f.Type
			}
		}
		if len(path) == 0 {
			return slices.Sorted(maps.Keys(fields))
		}
		next, ok := fields[path[0]]
		if !ok {
			return nil
		}
		t, path = next, path[1:]
	}
}

// readConfig reads the file at path, following links, only when it is a regular file of at
// most MaxConfigBytes: a FIFO would block the start for good, a device be read without end.
// The kind is checked before opening (opening a FIFO blocks) and again on what was opened.
func readConfig(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(info); err != nil {
		return nil, err
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if info, err = fh.Stat(); err != nil {
		return nil, err
	}
	if err := regular(info); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(fh, MaxConfigBytes+1))
	if err == nil && len(b) > MaxConfigBytes {
		return nil, errTooLarge
	}
	return b, err
}

// regular refuses what is not a regular file of at most MaxConfigBytes, saying what it is.
func regular(info os.FileInfo) error {
	mode := info.Mode()
	switch {
	case mode.IsDir():
		return errors.New("it is a directory, not a file; move it away or make it a file")
	case mode&os.ModeNamedPipe != 0:
		return errors.New("it is a named pipe, not a file; replace it with a file")
	case mode&(os.ModeDevice|os.ModeCharDevice) != 0:
		return errors.New("it is a device, not a file; replace it with a file")
	case !mode.IsRegular():
		return errors.New("it is not a regular file; replace it with a file")
	case info.Size() > MaxConfigBytes:
		return errTooLarge
	}
	return nil
}

// oneOf reports whether v is one of the values a setting takes.
func oneOf(v string, values ...string) bool { return slices.Contains(values, v) }
