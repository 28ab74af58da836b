package agent

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"parley/internal/chat"
)

// The token estimate. parley cannot know an endpoint's tokenizer, so it counts as OpenAI's
// rule of thumb does: about four characters a token, plus a few tokens per message for the
// role and the framing around it, plus a few that start the reply.
const (
	charsPerToken   = 4
	messageOverhead = 4
	replyPriming    = 3
)

// EstimateText estimates the tokens of s: a quarter of its characters, rounded up.
func EstimateText(s string) int {
	return runeTokens(utf8.RuneCountInString(s))
}

// runeTokens estimates the tokens of n characters.
func runeTokens(n int) int {
	return (n + charsPerToken - 1) / charsPerToken
}

// EstimateTokens estimates the prompt tokens of a request carrying msgs: EstimateText of
// each message's content plus 4 tokens a message and its images' (imageTokens), plus 3 for
// the start of the reply. No messages cost nothing.
func EstimateTokens(msgs []chat.Message) int {
	if len(msgs) == 0 {
		return 0
	}
	n := replyPriming
	for _, m := range msgs {
		n += messageTokens(m)
	}
	return n
}

// messageTokens estimates what one message adds to a request.
func messageTokens(m chat.Message) int {
	n := EstimateText(m.Content) + messageOverhead
	for _, im := range m.Images {
		n += imageTokens(im)
	}
	for _, tc := range m.ToolCalls {
		n += EstimateText(tc.Function) + EstimateText(tc.Arguments) + messageOverhead
	}
	return n
}

// imageTokens estimates an image as OpenAI counts one at high detail: scaled to fit 2048×2048,
// then its shorter side to 768, 170 tokens for each 512-pixel tile it covers and 85 besides.
// Other providers count differently, but in the same range.
func imageTokens(im chat.Image) int {
	w, h := float64(max(im.Width, 1)), float64(max(im.Height, 1))
	if s := 2048 / max(w, h); s < 1 {
		w, h = w*s, h*s
	}
	if s := 768 / min(w, h); s < 1 {
		w, h = w*s, h*s
	}
	tiles := math.Ceil(w/512) * math.Ceil(h/512)
	return 85 + 170*int(tiles)
}

// imagesToDrop says how many of msgs' earliest messages lose their images for msgs' estimate
// to be at most target: an image weighs more than most turns' text, and an old one matters
// less than the words around it. The last message's images are kept.
func imagesToDrop(msgs []chat.Message, target int) int {
	total := EstimateTokens(msgs)
	upTo := 0
	for ; upTo < len(msgs)-1 && total > target; upTo++ {
		for _, im := range msgs[upTo].Images {
			total -= imageTokens(im)
		}
	}
	return upTo
}

// promptShare is the part of a model's context window that compaction lets the prompt fill;
// the rest is left for the reply.
const promptShare = 0.75

// Compact leaves out the oldest turns of msgs until their estimate (EstimateTokens) is at most
// target. A turn is an operator message with the replies (and tool calls and results) after
// it; system messages, pinned messages and the last turn (the anchor being answered, with the
// steps of its run so far) are never left out. When even
// that is not enough, every turn but the anchor's is left out. It returns the messages kept,
// in order, and how many were left out; msgs itself is not changed.
func Compact(msgs []chat.Message, target int) (kept []chat.Message, omitted int) {
	drop, omitted := LeaveOut(msgs, target)
	return keep(msgs, drop, omitted), omitted
}

// keep returns the messages of msgs that drop does not leave out, omitted of them being left
// out; msgs itself when none is.
func keep(msgs []chat.Message, drop []bool, omitted int) []chat.Message {
	if omitted == 0 {
		return msgs
	}
	kept := make([]chat.Message, 0, len(msgs)-omitted)
	for i, m := range msgs {
		if !drop[i] {
			kept = append(kept, m)
		}
	}
	return kept
}

// LeaveOut says which of msgs Compact leaves out to reach target, by index, and how many: what
// a screen shows before the send that will leave them out.
func LeaveOut(msgs []chat.Message, target int) (drop []bool, omitted int) {
	total := EstimateTokens(msgs)
	drop = make([]bool, len(msgs))
	// last is where the turn being answered begins: its anchor, and the tool calls and results
	// of its run, which go together or not at all.
	last := len(msgs) - 1
	for last >= 0 && msgs[last].Role != chat.RoleUser {
		last--
	}
	if last < 0 {
		last = len(msgs) - 1
	}
	for i := 0; i < last && total > target; {
		if msgs[i].Role == chat.RoleSystem {
			i++
			continue
		}
		// Leave out message i and the replies that follow it, up to the next operator
		// message, system message or the anchor; a pinned one stays.
		for first := true; i < last && msgs[i].Role != chat.RoleSystem && (first || msgs[i].Role != chat.RoleUser); i++ {
			if !msgs[i].Pinned {
				drop[i] = true
				omitted++
				total -= messageTokens(msgs[i])
			}
			first = false
		}
	}
	return drop, omitted
}

// PreSendTarget is the estimate a conversation may reach before it is sent to a model whose
// context window is window, in requests that also carry fixed tokens besides the messages
// (the schemas of the tools offered): the rest is left for the reply.
func PreSendTarget(window, fixed int) int {
	return max(0, int(float64(window)*promptShare)-fixed)
}

// Plan is one computation of a request's context against the model's window: what it
// carries, what it leaves out to fit, and the numbers said of it. The client sends what its
// Plan keeps, and the chat screen shows the Plan of the next send (the header, the line
// above the input, /compact), so what is said and what is sent cannot disagree.
type Plan struct {
	// Window is the model's context window, 0 when unknown, and Source names what said it.
	Window int
	Source string
	// Tools is the estimate of the offered tools' schemas (ToolTokens), which go with every
	// request; Size is the conversation's whole estimate, its messages and Tools, before
	// anything is left out.
	Tools, Size int
	// Drop says, by index, which messages are left out; Omitted counts them, and Images
	// counts the images left out of the messages kept (those of the first imagesUpTo).
	Drop            []bool
	Omitted, Images int
	imagesUpTo      int
	// Tokens is the estimate of what is sent, Tools included; LeftOut of what is left out.
	Tokens, LeftOut int
}

// NewPlan plans a request of msgs to a model whose context window is window (said by
// source), offering tools estimated at tools tokens: at PreSendTarget the images of earlier
// messages are left out first, then the oldest turns (LeaveOut). A window of 0 is unknown
// and leaves nothing out.
func NewPlan(msgs []chat.Message, window int, source string, tools int) Plan {
	if window <= 0 {
		size := EstimateTokens(msgs) + tools
		return Plan{Source: source, Tools: tools, Size: size, Drop: make([]bool, len(msgs)), Tokens: size}
	}
	p := planAt(msgs, PreSendTarget(window, tools))
	p.Window, p.Source, p.Tools = window, source, tools
	p.Size += tools
	p.Tokens += tools
	return p
}

// Room is what the plan lets the prompt take of the window, the tools' schemas included
// (promptShare of it: the rest is the reply's); 0 when the window is unknown. A Size above it
// is what makes a send leave things out.
func (p Plan) Room() int {
	return PreSendTarget(p.Window, 0)
}

// Sent returns what a request made by the plan carries of msgs, the messages it was made of:
// those kept, without the images left out. msgs itself is not changed.
func (p Plan) Sent(msgs []chat.Message) []chat.Message {
	if p.imagesUpTo > 0 {
		msgs, _ = withoutImages(msgs, p.imagesUpTo)
	}
	return keep(msgs, p.Drop, p.Omitted)
}

// planAt leaves out what msgs must lose to be estimated at most target: the images of earlier
// messages first (imagesToDrop), then the oldest turns (LeaveOut). Size is msgs' estimate.
func planAt(msgs []chat.Message, target int) Plan {
	p := Plan{Size: EstimateTokens(msgs), imagesUpTo: imagesToDrop(msgs, target)}
	withImages := msgs
	if p.imagesUpTo > 0 {
		withImages, p.Images = withoutImages(msgs, p.imagesUpTo)
	}
	if p.Images == 0 {
		withImages, p.imagesUpTo = msgs, 0
	}
	p.Drop, p.Omitted = LeaveOut(withImages, target)
	for i, m := range withImages {
		if !p.Drop[i] {
			p.Tokens += messageTokens(m)
		}
	}
	if p.Tokens > 0 {
		p.Tokens += replyPriming
	}
	p.LeftOut = p.Size - p.Tokens
	return p
}

// compactAll leaves out what msgs must lose to be estimated at most target (planAt). It returns
// the messages kept and how many messages and images were left out.
func compactAll(msgs []chat.Message, target int) (kept []chat.Message, messages, images int) {
	p := planAt(msgs, target)
	return p.Sent(msgs), p.Omitted, p.Images
}

// compactTarget is the estimate the messages kept after an overflow may reach. When the error
// states the context window (limit) it is promptShare of it, scaled by how the endpoint's own
// count of the prompt (requested, when stated) compares with parley's estimate of sent, since
// tokenizers differ; without a stated window it is half the estimate of what was sent.
func compactTarget(sent []chat.Message, limit, requested int) int {
	est := EstimateTokens(sent)
	if limit <= 0 {
		return est / 2
	}
	b := float64(limit) * promptShare
	if requested > 0 && est > 0 {
		b *= float64(est) / float64(requested)
	}
	return int(b)
}

// overflowPatterns read the context window (limit) and the endpoint's count of the request
// (requested) from the overflow messages providers send; an index of 0 means the pattern does
// not state that number. They match lower-cased text.
var overflowPatterns = []struct {
	re               *regexp.Regexp
	limit, requested int
}{
	// OpenAI, DeepSeek, vLLM, Groq: "This model's maximum context length is 8192 tokens.
	// However, your messages resulted in 9000 tokens" / "you requested 5000 tokens" / "your
	// request has 8 input tokens".
	{regexp.MustCompile(`maximum context length is (\d+) tokens`), 1, 0},
	{regexp.MustCompile(`(?:resulted in|you requested|your request has) (\d+) (?:input )?tokens`), 0, 1},
	// llama.cpp: "request (13392 tokens) exceeds the available context size (8192 tokens)";
	// SGLang: "Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens)".
	{regexp.MustCompile(`\((\d+) tokens\) exceeds the [\w ]+?\((\d+) tokens\)`), 2, 1},
	// Anthropic: "prompt is too long: 205351 tokens > 200000 maximum", "input length and
	// max_tokens exceed context limit: 199759 + 8192 > 200000".
	{regexp.MustCompile(`prompt is too long: (\d+) tokens > (\d+) maximum`), 2, 1},
	{regexp.MustCompile(`exceed context limit: (\d+) \+ \d+ > (\d+)`), 2, 1},
	// Gemini: "The input token count (1234) exceeds the maximum number of tokens allowed (1000)".
	{regexp.MustCompile(`input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)`), 2, 1},
	// Mistral: "Prompt contains 40000 tokens … too large for model with 32768 maximum context length".
	{regexp.MustCompile(`prompt contains (\d+) tokens`), 0, 1},
	{regexp.MustCompile(`(\d+) maximum context length`), 1, 0},
	// Moonshot: "Your request exceeded model token limit: 262144 (requested: 265359)".
	{regexp.MustCompile(`token limit: (\d+) \(requested: (\d+)\)`), 1, 2},
	// vLLM behind Xinference: "The decoder prompt (length 66501) is longer than the maximum
	// model length of 65536".
	{regexp.MustCompile(`\(length (\d+)\) is longer than the maximum model length of (\d+)`), 2, 1},
	// xAI: "This model's maximum prompt length is 131072 but the request contains 537812 tokens".
	{regexp.MustCompile(`maximum prompt length is (\d+) but the request contains (\d+) tokens`), 1, 2},
	// GitHub Copilot: "prompt token count of 138898 exceeds the limit of 64000".
	{regexp.MustCompile(`prompt token count of (\d+) exceeds the limit of (\d+)`), 2, 1},
	// vLLM: "your prompt contains at least 4096 input tokens".
	{regexp.MustCompile(`prompt contains at least (\d+) input tokens`), 0, 1},
	// LM Studio: "Trying to keep the first 4632 tokens … context length of only 4096 tokens".
	{regexp.MustCompile(`keep the first (\d+) tokens`), 0, 1},
	{regexp.MustCompile(`context length of only (\d+) tokens`), 1, 0},
	// TGI: "`inputs` tokens + `max_new_tokens` must be <= 1512. Given: 1000 `inputs` tokens",
	// "`inputs` must have less than 1024 tokens. Given: 1168".
	{regexp.MustCompile(`must be <= (\d+)\. given: (\d+) .inputs. tokens`), 1, 2},
	{regexp.MustCompile(`must have less than (\d+) tokens\. given: (\d+)`), 1, 2},
	// DashScope: "Range of input length should be [1, 983616]".
	{regexp.MustCompile(`range of input length should be \[1, (\d+)\]`), 1, 0},
}

// parseOverflow reads from a context overflow error the model's context window (limit) and
// the endpoint's count of the request (requested); either is 0 when the error does not state
// it. llama.cpp's n_ctx and n_prompt_tokens fields are read from body; the rest comes from the
// provider's message.
func parseOverflow(body []byte, message string) (limit, requested int) {
	limit, requested = llamaCounts(body)
	text := strings.ToLower(message)
	for _, p := range overflowPatterns {
		m := p.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		if p.limit > 0 && limit == 0 {
			limit, _ = strconv.Atoi(m[p.limit])
		}
		if p.requested > 0 && requested == 0 {
			requested, _ = strconv.Atoi(m[p.requested])
		}
	}
	return limit, requested
}

// llamaCounts reads llama.cpp's n_ctx and n_prompt_tokens from an error body, inside its
// error object or beside it.
func llamaCounts(body []byte) (nCtx, nPrompt int) {
	var v struct {
		NCtx    int `json:"n_ctx"`
		NPrompt int `json:"n_prompt_tokens"`
		Error   *struct {
			NCtx    int `json:"n_ctx"`
			NPrompt int `json:"n_prompt_tokens"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &v) != nil {
		return 0, 0
	}
	nCtx, nPrompt = v.NCtx, v.NPrompt
	if v.Error != nil {
		nCtx, nPrompt = max(nCtx, v.Error.NCtx), max(nPrompt, v.Error.NPrompt)
	}
	return nCtx, nPrompt
}

// OmittedNote is the note that says what an EventCompacted left out of the request, as the
// transcript and print mode show it.
func OmittedNote(ev chat.Event) string {
	var parts []string
	if ev.OmittedImages > 0 {
		parts = append(parts, chat.Plural(ev.OmittedImages, "earlier image"))
	}
	if ev.Omitted > 0 {
		parts = append(parts, chat.Plural(ev.Omitted, "earlier message"))
	}
	why := "to fit the model's context"
	if ev.ImagesUnseen {
		why = "because this model takes no images"
	}
	return strings.Join(parts, " and ") + " left out " + why
}
