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
	"strings"
	"sync"
	"time"

	"parley/internal/chat"
)

// ModelFacts are what an endpoint says of its model beyond the OpenAI API, or what the profile
// says in its place.
type ModelFacts struct {
	// Vision says whether the model takes images; nil when nothing says.
	Vision *bool
	// VisionSource names what said it: "the profile", "llama-server /props", "Ollama /api/show".
	VisionSource string
}

// factsCache keeps each model's facts, asked once per process.
type factsCache struct {
	mu      sync.Mutex
	byModel map[string]ModelFacts
}

// factsTimeout bounds asking a server what it can do: a server that does not answer soon is
// asked the chat request itself.
const factsTimeout = 3 * time.Second

// Facts returns what is known of the model: the profile's vision setting first, else what the
// server says, asked once per model (llama-server's GET /props, then Ollama's POST /api/show).
// A server that says nothing, or does not answer, leaves Vision nil.
func (c *Client) Facts(ctx context.Context) ModelFacts {
	if c.ep.Vision != nil {
		return ModelFacts{Vision: c.ep.Vision, VisionSource: "the profile"}
	}
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
	root := serverRoot(c.ep.BaseURL)
	var props struct {
		Modalities *struct {
			Vision bool `json:"vision"`
		} `json:"modalities"`
	}
	if c.getJSON(ctx, http.MethodGet, root+"/props", nil, &props) && props.Modalities != nil {
		return ModelFacts{Vision: &props.Modalities.Vision, VisionSource: "llama-server /props"}
	}
	var show struct {
		Capabilities []string `json:"capabilities"`
	}
	body, _ := json.Marshal(map[string]string{"model": c.ep.Model})
	if c.getJSON(ctx, http.MethodPost, root+"/api/show", body, &show) && show.Capabilities != nil {
		vision := slices.Contains(show.Capabilities, "vision")
		return ModelFacts{Vision: &vision, VisionSource: "Ollama /api/show"}
	}
	return ModelFacts{}
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
	visionFix   = "choose a vision model (/model) or remove the image"
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
		return msgs, 0, &chat.Classification{Class: chat.BadRequest, Label: chat.Label(chat.BadRequest), Rule: "request.no-vision",
			Message: fmt.Sprintf("%s says %s takes no images; nothing was sent: %s", f.VisionSource, c.ep.Model, visionFix)}
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
