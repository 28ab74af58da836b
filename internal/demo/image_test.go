package demo

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"strings"
	"testing"
)

// imageRequest is a request whose one message holds text and images as content parts, the way
// OpenAI's API takes them.
func imageRequest(t *testing.T, text string, urls ...string) string {
	t.Helper()
	parts := []map[string]any{{"type": "text", "text": text}}
	for _, u := range urls {
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]string{"url": u}})
	}
	b, err := json.Marshal(map[string]any{"model": DefaultModel, "stream": false,
		"messages": []map[string]any{{"role": "user", "content": parts}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jpegURI(t *testing.T, w, h int) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), buf.Bytes()
}

// The demo takes images as content parts, keeps their bytes, and says what arrived.
func TestDemoDescribesTheImagesItReceived(t *testing.T) {
	s, c := start(t, Options{})
	uri, raw := jpegURI(t, 320, 200)
	resp := postChat(t, s, c, imageRequest(t, "what are the keys?", uri, "data:image/png;base64,aGVsbG8=", "https://example.com/cat.png"))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, want := range []string{"I received 3 images", "1. JPEG, 320×200 pixels, ", "2. could not be read: ", "3. could not be read: not a base64 data URI", "ctrl+c"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("reply lacks %q: %s", want, body)
		}
	}
	got := s.Received()[0].Messages[0]
	if got.Content != "what are the keys?" || len(got.Images) != 3 || !bytes.Equal(got.Images[0].Data, raw) {
		t.Errorf("received %+v", got)
	}
}

// Without vision the demo is llama-server without a projector: /props says so and an image
// gets its 500.
func TestDemoWithoutVisionSpeaksAsLlamaServer(t *testing.T) {
	s, c := start(t, Options{NoVision: true})
	resp, err := c.Get(strings.TrimSuffix(s.URL(), "/v1") + "/props")
	if err != nil {
		t.Fatal(err)
	}
	var props struct {
		Modalities map[string]bool `json:"modalities"`
	}
	json.NewDecoder(resp.Body).Decode(&props)
	resp.Body.Close()
	if props.Modalities == nil || props.Modalities["vision"] {
		t.Fatalf("props %+v", props)
	}
	uri, _ := jpegURI(t, 8, 8)
	resp = postChat(t, s, c, imageRequest(t, "describe", uri))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusInternalServerError || string(body) != noVisionBody {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp := postChat(t, s, c, chatBody(t, false, false, Message{Role: "user", Content: "hi"})); resp.StatusCode != http.StatusOK {
		t.Errorf("text alone: %d", resp.StatusCode)
	}
}
