package agent

import (
	"math"

	openai "github.com/sashabaranov/go-openai"

	"parley/internal/chat"
)

// request is the chat completion request for msgs, with the endpoint's limits and effort sent
// in the fields its model takes.
func (c *Client) request(msgs []chat.Message, withUsage bool) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{
		Model:           c.ep.Model,
		Messages:        c.toOpenAI(msgs),
		Stream:          true,
		ReasoningEffort: c.ep.ReasoningEffort,
		Tools:           c.tools,
	}
	if c.ep.MaxTokens > 0 {
		if c.ep.completionLimitField() {
			req.MaxCompletionTokens = c.ep.MaxTokens
		} else {
			//lint:ignore SA1019 most servers besides OpenAI's know only max_tokens
			req.MaxTokens = c.ep.MaxTokens
		}
	}
	// go-openai leaves out a zero; the smallest float32 is how a set 0 is sent as 0.
	if t := c.ep.Temperature; t != nil {
		req.Temperature = max(float32(*t), math.SmallestNonzeroFloat32)
	}
	if t := c.ep.TopP; t != nil {
		req.TopP = float32(*t)
	}
	if withUsage {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return req
}

// toOpenAI converts msgs for the request. A message with images is sent as content parts: its
// text, then each image as an image_url holding a data URI. Stored thinking goes back only to
// an endpoint whose profile asks for it: most reject it, or are only confused by it.
func (c *Client) toOpenAI(msgs []chat.Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		out[i] = openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
		if len(m.Images) > 0 {
			out[i].Content, out[i].MultiContent = "", contentParts(m)
		}
		if c.ep.SendReasoning {
			out[i].ReasoningContent = m.Reasoning
		}
		toolMessage(m, &out[i])
	}
	return out
}

// contentParts are m's text and images as OpenAI content parts.
func contentParts(m chat.Message) []openai.ChatMessagePart {
	var parts []openai.ChatMessagePart
	if m.Content != "" {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
	}
	for _, im := range m.Images {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: im.DataURI()}})
	}
	return parts
}
