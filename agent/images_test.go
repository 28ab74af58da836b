package agent

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// testImage is a real w×h PNG, as attach reads one.
func testImage(t *testing.T, name string, w, h int) chat.Image {
	t.Helper()
	im, err := attach.Inspect(name, chattest.PNG(t, w, h))
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// An image goes as an image_url content part after the message's text, its bytes unchanged.
func TestImagesAreSentAsContentParts(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	im := testImage(t, "chart.png", 40, 30)
	events := runEvents(t, testClient(Endpoint{BaseURL: srv.URL(), Model: "m"}),
		[]chat.Message{{Role: chat.RoleUser, Content: "what is this?", Images: []chat.Image{im}}})
	if last := events[len(events)-1]; last.Kind != chat.EventFinished {
		t.Fatalf("ended %+v", last)
	}
	req := srv.Received()[0]
	var body struct {
		Messages []struct {
			Content []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("%v: %s", err, req.Body)
	}
	parts := body.Messages[0].Content
	if len(parts) != 2 || parts[0].Type != "text" || parts[0].Text != "what is this?" || parts[1].Type != "image_url" ||
		!strings.HasPrefix(parts[1].ImageURL.URL, "data:image/png;base64,") {
		t.Fatalf("content parts %+v", parts)
	}
	got := req.Messages[0].Images
	if len(got) != 1 || !bytes.Equal(got[0].Data, im.Data) || got[0].Width != 40 || got[0].Height != 30 {
		t.Fatalf("the demo received %+v", got)
	}
	if !strings.Contains(text(events), "PNG, 40×30 pixels") {
		t.Errorf("the demo's reply does not say what it received: %q", text(events))
	}
}

// llamaServer is a demo endpoint that speaks as llama-server does of vision: GET /props
// says what the model takes, and without vision an image gets llama-server's 500. props counts
// the /props requests.
func llamaServer(t *testing.T, vision bool) (base string, props *atomic.Int32, srv *demo.Server) {
	t.Helper()
	srv = demotest.Start(t, demo.Options{NoVision: !vision})
	target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/v1"))
	proxy := httputil.NewSingleHostReverseProxy(target)
	props = new(atomic.Int32)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/props" {
			props.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/v1", props, srv
}

// A server that says it has no vision is sent no image: the run fails at once, naming the fix,
// and the server is asked once however many runs follow.
func TestNoImageSentToAServerWithoutVision(t *testing.T) {
	t.Parallel()
	base, props, srv := llamaServer(t, false)
	c := testClient(Endpoint{BaseURL: base, Model: "tiny"})
	msgs := []chat.Message{{Role: chat.RoleUser, Content: "describe", Images: []chat.Image{testImage(t, "a.png", 8, 8)}}}
	for range 2 {
		events := runEvents(t, c, msgs)
		last := events[len(events)-1]
		if last.Kind != chat.EventFailed || last.Class.Class != chat.BadRequest || last.Class.Retryable ||
			last.Class.Rule != "request.no-vision" || count(events, chat.EventStarted) != 0 {
			t.Fatalf("events %+v", events)
		}
		want := "llama-server /props says tiny takes no images; nothing was sent: choose a vision model (/model; in print mode, --model NAME) or remove the image"
		if last.Class.Message != want {
			t.Fatalf("message %q\nwant    %q", last.Class.Message, want)
		}
	}
	if srv.Requests() != 0 || props.Load() != 1 {
		t.Fatalf("%d chat requests and %d /props requests; want none and one", srv.Requests(), props.Load())
	}
}

// A profile that says the model sees is believed over the server; when the server then refuses
// the image (llama-server's 500), the failure is final, after one request, with the fix.
func TestProfileVisionIsBelievedAndTheRefusalIsFinal(t *testing.T) {
	t.Parallel()
	base, props, srv := llamaServer(t, false)
	yes := true
	c := testClient(Endpoint{BaseURL: base, Model: "tiny", Vision: &yes})
	events := runEvents(t, c, []chat.Message{{Role: chat.RoleUser, Content: "describe", Images: []chat.Image{testImage(t, "a.png", 8, 8)}}})
	last := events[len(events)-1]
	if last.Kind != chat.EventFailed || last.Class.Class != chat.BadRequest || last.Class.Retryable || srv.Requests() != 1 || props.Load() != 1 {
		t.Fatalf("%d requests, %d /props: %+v", srv.Requests(), props.Load(), last)
	}
	want := "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj: " + noVisionFix
	if last.Class.Message != want {
		t.Errorf("message %q\nwant    %q", last.Class.Message, want)
	}
}

// Ollama says what a model can do in /api/show's capabilities.
func TestOllamaCapabilitiesSayWhetherAModelSees(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		capabilities []string
		sent         int
	}{{[]string{"completion"}, 0}, {[]string{"completion", "vision"}, 1}} {
		srv := demotest.Start(t, demo.Options{})
		target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/v1"))
		var asked string
		mux := http.NewServeMux()
		mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
			var req struct{ Model string }
			json.NewDecoder(r.Body).Decode(&req)
			asked = req.Model
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			json.NewEncoder(w).Encode(map[string]any{"modelfile": "FROM tiny", "details": map[string]any{"format": "gguf", "family": "llama"},
				"capabilities": tc.capabilities})
		})
		mux.Handle("/v1/", httputil.NewSingleHostReverseProxy(target))
		ts := httptest.NewServer(mux) // no /props: Ollama answers it 404
		c := testClient(Endpoint{BaseURL: ts.URL + "/v1", Model: "tiny:latest"})
		events := runEvents(t, c, []chat.Message{{Role: chat.RoleUser, Content: "describe", Images: []chat.Image{testImage(t, "a.png", 8, 8)}}})
		ts.Close()
		if srv.Requests() != tc.sent || asked != "tiny:latest" {
			t.Errorf("%v: %d requests sent, asked about %q: %+v", tc.capabilities, srv.Requests(), asked, events[len(events)-1])
		}
		if tc.sent == 0 && !strings.HasPrefix(events[len(events)-1].Class.Message, "Ollama /api/show says tiny:latest takes no images") {
			t.Errorf("message %q", events[len(events)-1].Class.Message)
		}
	}
}

// The images of earlier turns are left out for a model that cannot see, and the run says so;
// the conversation still goes.
func TestEarlierImagesLeftOutForAModelThatCannotSee(t *testing.T) {
	t.Parallel()
	base, _, srv := llamaServer(t, false)
	c := testClient(Endpoint{BaseURL: base, Model: "tiny"})
	events := runEvents(t, c, []chat.Message{
		{Role: chat.RoleUser, Content: "what is this?", Images: []chat.Image{testImage(t, "a.png", 8, 8), testImage(t, "b.png", 9, 9)}},
		{Role: chat.RoleAssistant, Content: "Two squares."},
		{Role: chat.RoleUser, Content: "thanks; and what is a quokka?"},
	})
	if last := events[len(events)-1]; last.Kind != chat.EventFinished || srv.Requests() != 1 {
		t.Fatalf("%d requests: %+v", srv.Requests(), events)
	}
	if got := srv.Received()[0].Messages[0]; got.Content != "what is this?" || len(got.Images) != 0 {
		t.Errorf("first message sent as %+v", got)
	}
	var note string
	for _, ev := range events {
		if ev.Kind == chat.EventCompacted {
			note = OmittedNote(ev)
		}
	}
	if note != "2 earlier images left out because this model takes no images" {
		t.Errorf("note %q", note)
	}
}

// Compaction leaves out old images before it leaves out any message.
func TestCompactionLeavesOutOldImagesFirst(t *testing.T) {
	t.Parallel()
	big := testImage(t, "big.png", 2048, 2048)
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "look", Images: []chat.Image{big}},
		{Role: chat.RoleAssistant, Content: "A gradient."},
		{Role: chat.RoleUser, Content: "and this one?", Images: []chat.Image{testImage(t, "small.png", 64, 64)}},
	}
	full := EstimateTokens(msgs)
	kept, messages, images := compactAll(msgs, full-imageTokens(big)/2)
	if images != 1 || messages != 0 || len(kept) != 3 || len(kept[0].Images) != 0 || len(kept[2].Images) != 1 {
		t.Fatalf("left out %d messages, %d images: %+v", messages, images, kept)
	}
	if len(msgs[0].Images) != 1 {
		t.Fatal("compaction changed its input")
	}
	if got := imageTokens(big); got != 765 {
		t.Errorf("a 2048×2048 image is estimated at %d tokens, OpenAI counts 765", got)
	}
}
