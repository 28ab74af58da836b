package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/internal/chat"
)

// ModelFacts are what an endpoint says of its model beyond the OpenAI API, or, where it says
// nothing, what the profile or parley's table of known models says.
type ModelFacts struct {
	// Vision says whether the model takes images; nil when nothing says.
	Vision *bool
	// VisionSource names what said it: "the profile", "llama-server /props", "Ollama /api/show".
	VisionSource string
	// Window is the model's context window in tokens, 0 when nothing says; WindowSource names
	// what said it, briefly enough for the chat screen's header: "llama-server", "vLLM",
	// "Ollama", "endpoint" (its /models context_length), "profile", "known models".
	Window       int
	WindowSource string
	// Prefill is set for a server that continues a final assistant message as its own text
	// (llama-server), which a cut reply is continued through.
	Prefill bool
}

// factsCache keeps each model's facts, asked once per process.
type factsCache struct {
	mu      sync.Mutex
	byModel map[string]ModelFacts
}

// factsTimeout bounds asking a server what it can do: a server that does not answer soon is
// asked the chat request itself.
const factsTimeout = 3 * time.Second

// Facts returns what is known of the model, asking the server once per model (llama-server's
// GET /props, the /models listing's fields that OpenRouter, vLLM and llama-server add, then
// Ollama's POST /api/show). The profile's vision setting is believed over the server; the
// server's window over the profile's, then the table of known models. A server that says
// nothing, or does not answer within factsTimeout, leaves the facts unset.
func (c *Client) Facts(ctx context.Context) ModelFacts {
	f := c.serverFacts(ctx)
	if c.ep.Vision != nil {
		f.Vision, f.VisionSource = c.ep.Vision, "the profile"
	}
	switch {
	case f.Window > 0:
	case c.ep.ContextTokens > 0:
		f.Window, f.WindowSource = c.ep.ContextTokens, "profile"
	default:
		if n := knownWindow(c.ep.Model); n > 0 {
			f.Window, f.WindowSource = n, "known models"
		}
	}
	return f
}

// smallWindow is the size of conversation below which no window a server runs with matters:
// only a longer one asks the server for its facts before it is sent.
const smallWindow = 1000

// window is the context window msgs are fitted to before they are sent: the model's, as Facts
// says, once the conversation is long enough to need it (or the server was asked already);
// the profile's alone otherwise. 0 when none is known.
func (c *Client) window(ctx context.Context, msgs []chat.Message) int {
	if EstimateTokens(msgs) <= smallWindow && !c.factsAsked() {
		return c.ep.ContextTokens
	}
	return c.Facts(ctx).Window
}

// factsAsked reports whether the server was asked for the model's facts already.
func (c *Client) factsAsked() bool {
	c.facts.mu.Lock()
	defer c.facts.mu.Unlock()
	_, ok := c.facts.byModel[c.ep.Model]
	return ok
}

// serverFacts is what the server says of the model, asked once.
func (c *Client) serverFacts(ctx context.Context) ModelFacts {
	c.facts.mu.Lock()
	defer c.facts.mu.Unlock()
	if f, ok := c.facts.byModel[c.ep.Model]; ok {
		return f
	}
	asking, cancel := context.WithTimeout(ctx, factsTimeout)
	defer cancel()
	f := c.askFacts(asking)
	if ctx.Err() == nil { // a run cancelled while asking learnt nothing
		c.facts.byModel[c.ep.Model] = f
	}
	return f
}

func (c *Client) askFacts(ctx context.Context) ModelFacts {
	var f ModelFacts
	root := serverRoot(c.ep.BaseURL)
	var props struct {
		Settings *struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		Modalities *struct {
			Vision bool `json:"vision"`
		} `json:"modalities"`
	}
	if c.getJSON(ctx, http.MethodGet, root+"/props", nil, &props) {
		// Generation settings are llama-server's own, and llama-server continues a final
		// assistant message.
		f.Prefill = props.Settings != nil
		if props.Modalities != nil {
			f.Vision, f.VisionSource = &props.Modalities.Vision, "llama-server /props"
		}
		if props.Settings != nil && props.Settings.NCtx > 0 {
			f.Window, f.WindowSource = props.Settings.NCtx, "llama-server"
		}
	}
	if f.Window == 0 {
		f.Window, f.WindowSource = c.listedWindow(ctx)
	}
	if f.Vision != nil && f.Window > 0 {
		return f
	}
	var show struct {
		Capabilities []string `json:"capabilities"`
		Parameters   string   `json:"parameters"`
	}
	body, _ := json.Marshal(map[string]string{"model": c.ep.Model})
	if !c.getJSON(ctx, http.MethodPost, root+"/api/show", body, &show) {
		return f
	}
	if f.Vision == nil && show.Capabilities != nil {
		vision := slices.Contains(show.Capabilities, "vision")
		f.Vision, f.VisionSource = &vision, "Ollama /api/show"
	}
	if n := numCtx(show.Parameters); f.Window == 0 && n > 0 {
		f.Window, f.WindowSource = n, "Ollama"
	}
	return f
}

// listedWindow reads the model's window from the /models listing, where a server adds it:
// OpenRouter's context_length, vLLM's max_model_len, llama-server's meta.n_ctx.
func (c *Client) listedWindow(ctx context.Context) (int, string) {
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			ContextLength int    `json:"context_length"`
			MaxModelLen   int    `json:"max_model_len"`
			Meta          *struct {
				NCtx int `json:"n_ctx"`
			} `json:"meta"`
		} `json:"data"`
	}
	if !c.getJSON(ctx, http.MethodGet, strings.TrimRight(c.ep.BaseURL, "/")+"/models", nil, &list) {
		return 0, ""
	}
	for _, m := range list.Data {
		if m.ID != c.ep.Model && len(list.Data) > 1 {
			continue
		}
		switch {
		case m.ContextLength > 0:
			return m.ContextLength, "endpoint"
		case m.MaxModelLen > 0:
			return m.MaxModelLen, "vLLM"
		case m.Meta != nil && m.Meta.NCtx > 0:
			return m.Meta.NCtx, "llama-server"
		}
	}
	return 0, ""
}

// numCtx reads num_ctx from Ollama's parameters text ("num_ctx                        8192").
func numCtx(parameters string) int {
	for _, line := range strings.Split(parameters, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// knownWindows are the context windows of models whose servers do not say, by the start of
// the model's name (longest first), as their providers document them.
var knownWindows = []struct {
	prefix string
	tokens int
}{
	{"gpt-4.1", 1047576}, {"gpt-4o", 128000}, {"gpt-4-turbo", 128000}, {"gpt-5", 400000},
	{"o1", 200000}, {"o3", 200000}, {"o4-mini", 200000},
	{"claude-", 200000},
	{"gemini-1.5-pro", 2097152}, {"gemini-", 1048576},
	{"deepseek-chat", 65536}, {"deepseek-reasoner", 65536},
	{"llama-3.1", 131072}, {"llama-3.2", 131072}, {"llama-3.3", 131072},
	{"mistral-large", 131072}, {"mistral-small", 32768},
	{"grok-", 131072},
}

// knownWindow is the model's window from knownWindows, 0 for a model not in it.
func knownWindow(model string) int {
	name := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	best, n := 0, 0
	for _, k := range knownWindows {
		if strings.HasPrefix(name, k.prefix) && len(k.prefix) > best {
			best, n = len(k.prefix), k.tokens
		}
	}
	return n
}

// getJSON sends a request with the endpoint's key and decodes a 200 JSON answer into v,
// reporting whether it could.
func (c *Client) getJSON(ctx context.Context, method, url string, body []byte, v any) bool {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	if c.ep.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.ep.APIKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxCapture)).Decode(v) == nil
}

// serverRoot is the server a base URL is under: http://host:8080/v1 → http://host:8080, where
// llama-server and Ollama answer their own API.
func serverRoot(base string) string {
	b := strings.TrimRight(base, "/")
	return strings.TrimSuffix(b, "/v1")
}

// The fix for an image sent to a model that cannot see, and how an endpoint's refusal of one
// ends.
const (
	visionFix   = "choose a vision model (/model; in print mode, --model NAME) or remove the image"
	noVisionFix = "this model does not take images: " + visionFix
)

// seeable readies msgs' images for a model that may not see: when what is known of the model
// says it takes none, the images of earlier messages are left out (and counted), and images in
// the last message, the one being answered, fail the run before anything is sent.
func (c *Client) seeable(ctx context.Context, msgs []chat.Message) ([]chat.Message, int, *chat.Classification) {
	if !hasImages(msgs) {
		return msgs, 0, nil
	}
	f := c.Facts(ctx)
	if f.Vision == nil || *f.Vision {
		return msgs, 0, nil
	}
	if last := msgs[len(msgs)-1]; len(last.Images) > 0 {
		cls := chat.NewClassification(chat.BadRequest,
			fmt.Sprintf("%s says %s takes no images; nothing was sent: %s", f.VisionSource, c.ep.Model, visionFix))
		cls.Rule = "request.no-vision"
		return msgs, 0, &cls
	}
	kept, n := withoutImages(msgs, len(msgs))
	return kept, n, nil
}

// refusesImages reports whether cls is an endpoint refusing the images msgs carried: a request
// it cannot serve, or a bad request that speaks of images.
func refusesImages(cls chat.Classification, msgs []chat.Message) bool {
	if !hasImages(msgs) || cls.Class != chat.BadRequest {
		return false
	}
	return cls.Rule == "request.unsupported" || imageWords.MatchString(cls.Message)
}

// imageWords are how refusals of an image name it.
var imageWords = regexp.MustCompile(`(?i)\bimage|image_url|vision|multi-?modal`)

// hasImages reports whether any of msgs carries an image.
func hasImages(msgs []chat.Message) bool {
	return slices.ContainsFunc(msgs, func(m chat.Message) bool { return len(m.Images) > 0 })
}

// withoutImages is msgs with the images of the first upTo messages left out, and how many
// that was; msgs itself is not changed.
func withoutImages(msgs []chat.Message, upTo int) ([]chat.Message, int) {
	out, n := slices.Clone(msgs), 0
	for i := range out[:upTo] {
		n += len(out[i].Images)
		out[i].Images = nil
	}
	return out, n
}

// continueInstruction asks a model that cannot be handed a final assistant message as its own
// to go on from it: the reply so far goes as the assistant's turn, and this after it.
const continueInstruction = "Your reply above was cut off. Continue it from exactly where it stopped, " +
	"mid-word or mid-sentence if need be, without repeating any of it and without comment."

// continuation readies msgs that end with the assistant's turn (a cut reply being continued):
// sent as they are to a server that continues a final assistant message itself (the profile's
// prefill, else Facts), else with continueInstruction after them.
func (c *Client) continuation(ctx context.Context, msgs []chat.Message) []chat.Message {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != chat.RoleAssistant {
		return msgs
	}
	prefill := c.Facts(ctx).Prefill
	if c.ep.Prefill != nil {
		prefill = *c.ep.Prefill
	}
	if prefill {
		return msgs
	}
	return append(slices.Clip(msgs), chat.Message{Role: chat.RoleUser, Content: continueInstruction})
}

// echo takes out of a continuation's answer the reply being continued, which a server that
// continues a final assistant message (llama-server) streams back first, in its first delta.
// Answer text is held while it could still be that echo; only the whole of it is taken out.
type echo struct {
	prefix, held string
	done         bool
}

// echoOf is the echo of msgs' final assistant message, or none (done) when the last message is
// not the assistant's.
func echoOf(msgs []chat.Message) *echo {
	if n := len(msgs); n > 0 && msgs[n-1].Role == chat.RoleAssistant && msgs[n-1].Content != "" {
		return &echo{prefix: msgs[n-1].Content}
	}
	return &echo{done: true}
}

// take returns what of s is the continuation, holding what may yet be the echo.
func (e *echo) take(s string) string {
	if e.done {
		return s
	}
	e.held += s
	if len(e.held) < len(e.prefix) && strings.HasPrefix(e.prefix, e.held) {
		return ""
	}
	e.done = true
	if rest, ok := strings.CutPrefix(e.held, e.prefix); ok {
		return rest
	}
	return e.held
}

// flush returns what is still held when the answer ends: it was not the echo.
func (e *echo) flush() string {
	if e.done {
		return ""
	}
	e.done = true
	return e.held
}
