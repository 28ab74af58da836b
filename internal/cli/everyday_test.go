package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// The daily driver from the command line: attached files (images among them), the model asked
// of the endpoint, and a profile's sampling settings (piped text is
// testdata/script/piped-text.txtar).

func TestAttachedFilesAndRefusals(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	u.writeHome(map[string]string{"notes.md": "# Notes\nremember the milk\n", "big.txt": strings.Repeat("x", 3000),
		"config.toml": "max_attachment_bytes = 2048\n"})
	notes := filepath.Join(u.home, "notes.md")
	r := u.run("-p", "summarise", "-f", notes, "--base-url", srv.URL(), "--model", "m", "--json")
	out := decode[printJSON](t, r.stdout)
	want := "summarise\n\n" + notes + "\n```md\n# Notes\nremember the milk\n```"
	if got := srv.Received()[0].Messages[0].Content; r.code != 0 || got != want {
		t.Fatalf("exit %d, sent %q, want %q", r.code, got, want)
	}
	e := decode[exportJSON](t, u.run("export", out.SessionID, "--json").stdout)
	if e.Messages[0].Content != want {
		t.Fatalf("stored %q: the attachment is part of the operator message", e.Messages[0].Content)
	}

	png, elf := filepath.Join(u.home, "pic.png"), filepath.Join(u.home, "a.out")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(elf, []byte("\x7fELF\x02\x01\x01\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{png, "it looks like an image but does not decode"},
		{elf, "it is binary, not text or an image parley sends"},
		{filepath.Join(u.home, "gone.txt"), "no such file"},
		{filepath.Join(u.home, "big.txt"), "2.9 KiB is over the 2.0 KiB limit; raise max_attachment_bytes"},
	} {
		r := u.run("-p", "look", "-f", notes, "--file", c.path, "--base-url", srv.URL(), "--model", "m")
		line := strings.TrimSpace(r.stderr)
		if r.code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "cannot attach "+c.path+": "+c.says) {
			t.Errorf("%s: exit %d, stderr %q", c.path, r.code, r.stderr)
		}
	}
	if r := u.pipe("\x00\x01binary", "-p", "look", "--base-url", srv.URL(), "--model", "m"); r.code != 2 || !strings.Contains(r.stderr, "cannot attach stdin: it is binary") {
		t.Errorf("binary stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	// A prompt that is all of stdin is held to the same limit as piped text.
	if r := u.pipe(strings.Repeat("y", 3000), "--base-url", srv.URL(), "--model", "m"); r.code != 2 ||
		!strings.Contains(r.stderr, "cannot attach stdin: 2.9 KiB is over the 2.0 KiB limit") {
		t.Errorf("a prompt of 3000 bytes on stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	if srv.Requests() != 1 {
		t.Fatalf("%d requests: a refused attachment must send nothing", srv.Requests())
	}
	if s := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout); len(s) != 1 {
		t.Fatalf("sessions %+v: a refused attachment must store nothing", s)
	}
}

func TestTheModelIsAskedOfTheEndpoint(t *testing.T) {
	t.Parallel()
	one := demotest.Start(t, demo.Options{Model: "only-model"})
	u := newUser(t)
	r := u.run("-p", "hello", "--base-url", one.URL(), "--json")
	var body struct{ Model string }
	if r.code != 0 || one.Requests() != 1 || json.Unmarshal(one.Received()[0].Body, &body) != nil || body.Model != "only-model" {
		t.Fatalf("exit %d, %d requests, model %q; stderr %q", r.code, one.Requests(), body.Model, r.stderr)
	}
	several := demotest.Start(t, demo.Options{Model: "b-model", MoreModels: []string{"a-model", "c-model"}})
	r = u.run("-p", "hello", "--base-url", several.URL())
	if want := "serves 3 models (a-model, b-model, c-model): pass --model NAME"; r.code != 2 || !strings.Contains(r.stderr, want) || several.Requests() != 0 {
		t.Fatalf("several models: exit %d, %d requests, stderr %q", r.code, several.Requests(), r.stderr)
	}
	// Asking fails as a run would: classified, with the fix, not as a usage error.
	r = u.run("-p", "hello", "--base-url", "http://127.0.0.1:9/v1", "--json")
	if r.code != 1 || !strings.Contains(r.stderr, "nothing is listening on 127.0.0.1:9") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("unreachable: exit %d, stderr %q", r.code, r.stderr)
	}
	if out := decode[printJSON](t, r.stdout); out.Status != "failed" || out.Retry == nil || out.Retry.RetryClass != "network" {
		t.Fatalf("--json of a failure before the run: %+v", out)
	}
}

// A server still loading its model answers 503 "Loading model" to the list of models: with
// --wait parley asks again as Tier 2 would, and the reply comes once it has loaded.
func TestAskingForTheModelWaitsWithWait(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Model: "llama"})
	var asked atomic.Int32
	loading := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") && asked.Add(1) <= 3 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
			return
		}
		proxyTo(w, r, srv.URL())
	}))
	t.Cleanup(loading.Close)
	u := newUser(t)
	clock := u.instantClock()
	start := clock.Now()
	r := u.run("-p", "hello", "--base-url", loading.URL+"/v1", "--wait=30s")
	if r.code != 0 || asked.Load() != 4 || srv.Requests() != 1 || !strings.Contains(r.stderr, "retrying") {
		t.Fatalf("exit %d, asked %d times, %d requests; stderr %q", r.code, asked.Load(), srv.Requests(), r.stderr)
	}
	if waited := clock.Now().Sub(start); waited < 2*time.Second+4*time.Second+8*time.Second {
		t.Errorf("waited %s: Tier 2's 2 s, 4 s, 8 s", waited)
	}
	r = u.run("-p", "hello", "--base-url", loading.URL+"/v1") // loaded by now, and without --wait
	if r.code != 0 {
		t.Fatalf("after loading: exit %d %s", r.code, r.stderr)
	}
	asked.Store(0)
	if r := u.run("-p", "hello", "--base-url", loading.URL+"/v1"); r.code != 3 || !strings.Contains(r.stderr, "Loading model") {
		t.Fatalf("loading, without --wait: exit %d, stderr %q", r.code, r.stderr)
	}
}

// proxyTo answers r with what the server at base (its URL ending in /v1) answers.
func proxyTo(w http.ResponseWriter, r *http.Request, base string) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimSuffix(base, "/v1")+r.URL.Path, r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func TestAProfilesSamplingReachesTheRequest(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	u.writeConfig(fmt.Sprintf("[profiles.warm]\nbase_url = %q\nmodel = \"m\"\ntemperature = 0.7\ntop_p = 0.9\n"+
		"[profiles.cold]\nbase_url = %q\nmodel = \"m\"\ntemperature = 0.0\n", srv.URL(), srv.URL()))
	for _, p := range []string{"warm", "cold", ""} {
		args := []string{"-p", "hi", "--profile", p}
		if p == "" {
			args = []string{"-p", "hi", "--base-url", srv.URL(), "--model", "m"}
		}
		if r := u.run(args...); r.code != 0 {
			t.Fatalf("%s: exit %d %s", p, r.code, r.stderr)
		}
	}
	var sent []map[string]any
	for _, req := range srv.Received() {
		var body map[string]any
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, body)
	}
	if sent[0]["temperature"] != 0.7 || sent[0]["top_p"] != 0.9 {
		t.Errorf("warm sent temperature %v, top_p %v", sent[0]["temperature"], sent[0]["top_p"])
	}
	if temp, ok := sent[1]["temperature"].(float64); !ok || temp > 1e-6 {
		t.Errorf("cold sent temperature %v, want 0 (present)", sent[1]["temperature"])
	}
	if _, ok := sent[2]["temperature"]; ok {
		t.Errorf("no profile sent temperature %v, want none", sent[2]["temperature"])
	}
}

// An image attached with -f or piped on stdin goes to the model with the prompt, byte for
// byte, and is kept with the message: -c sends it again, and export writes the same bytes.
func TestImagesAttachedInPrintMode(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	photo, want := chattest.WritePNG(t, t.TempDir(), "photo.png", 640, 480)
	r := u.run("-p", "what is this?", "-f", photo, "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || !strings.Contains(r.stdout, "PNG, 640×480 pixels") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	sent := srv.Received()[0].Messages[0]
	if sent.Content != "what is this?" || len(sent.Images) != 1 || !bytes.Equal(sent.Images[0].Data, want) {
		t.Fatalf("sent %q with %d images", sent.Content, len(sent.Images))
	}

	if r := u.run("-c", "-p", "and the colours?", "--base-url", srv.URL(), "--model", "m"); r.code != 0 {
		t.Fatalf("-c: exit %d, %q", r.code, r.stderr)
	}
	again := srv.Received()[1].Messages
	if len(again) != 3 || len(again[0].Images) != 1 || !bytes.Equal(again[0].Images[0].Data, want) || len(again[2].Images) != 0 {
		t.Fatalf("-c sent %+v", again)
	}

	piped := u.pipe(string(want), "-p", "describe", "--base-url", srv.URL(), "--model", "m")
	if piped.code != 0 || !strings.Contains(piped.stdout, "PNG, 640×480 pixels") {
		t.Fatalf("piped image: exit %d, %q", piped.code, piped.stderr)
	}
	if got := srv.Received()[2].Messages[0]; got.Content != "describe" || len(got.Images) != 1 || !bytes.Equal(got.Images[0].Data, want) {
		t.Fatalf("piped image sent as %q with %d images", got.Content, len(got.Images))
	}

	dir := filepath.Join(t.TempDir(), "out")
	ex := u.run("export", "--json", "--images", dir, firstSession(t, u))
	if ex.code != 0 {
		t.Fatalf("export: %d %q", ex.code, ex.stderr)
	}
	var out struct {
		Messages []struct {
			Images []struct {
				Name   string `json:"name"`
				SHA256 string `json:"sha256"`
				Width  int    `json:"width"`
				File   string `json:"file"`
			} `json:"images"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(ex.stdout), &out); err != nil {
		t.Fatal(err)
	}
	im := out.Messages[0].Images
	if len(im) != 1 || im[0].Name != "photo.png" || im[0].Width != 640 || im[0].File == "" {
		t.Fatalf("exported %+v", out.Messages)
	}
	if b, err := os.ReadFile(im[0].File); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("--images wrote %d bytes (%v), not the image sent", len(b), err)
	}
	md := u.run("export", "--markdown", firstSession(t, u))
	if !strings.Contains(md.stdout, "_▣ photo.png · 640×480 · ") {
		t.Errorf("markdown lacks the image's line:\n%s", md.stdout)
	}
}

// firstSession is the id of the user's oldest session.
func firstSession(t *testing.T, u *user) string {
	t.Helper()
	r := u.run("sessions", "--json")
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) == 0 {
		t.Fatalf("sessions: %v %q", err, r.stdout)
	}
	return list[len(list)-1].ID
}

// An image larger than parley sends is scaled down, saying so (e2e sends a 20 MB photo); a
// binary that is no image is still refused as binary, and sends nothing.
func TestWideImageScaledAndBinaryRefused(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	dir := t.TempDir()
	wide, _ := chattest.WritePNG(t, dir, "banner.png", 4096, 64)
	r := u.run("-p", "what is this?", "-f", wide, "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || !strings.Contains(r.stderr, "parley: banner.png: scaled down from 4096×64 to 2048×32 to send") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := srv.Received()[0].Messages[0].Images; len(got) != 1 || got[0].Width != 2048 || got[0].Height != 32 {
		t.Fatalf("sent %+v", got)
	}

	elf := filepath.Join(dir, "a.out")
	os.WriteFile(elf, []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00"), 0o600)
	r = u.run("-p", "what is this?", "-f", elf, "--base-url", srv.URL(), "--model", "m")
	if r.code != 2 || r.stderr != "parley: cannot attach "+elf+": it is binary, not text or an image parley sends (PNG, JPEG, WebP, GIF)\n" || srv.Requests() != 1 {
		t.Fatalf("binary: exit %d, stderr %q, %d requests", r.code, r.stderr, srv.Requests())
	}
}

// A model that cannot see is sent no image: the endpoint's /props says so first; a profile
// that says it sees is believed, and the endpoint's refusal is final, with the fix.
func TestPrintModeImageToAModelThatCannotSee(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{NoVision: true})
	u := newUser(t)
	photo, _ := chattest.WritePNG(t, t.TempDir(), "photo.png", 16, 16)
	fix := "choose a vision model (/model; in print mode, --model NAME) or remove the image"

	r := u.run("-p", "describe", "-f", photo, "--base-url", srv.URL(), "--model", "tiny")
	if r.code != 1 || srv.Requests() != 0 || !strings.Contains(r.stderr, "llama-server /props says tiny takes no images; nothing was sent") ||
		!strings.Contains(r.stderr, fix) {
		t.Fatalf("exit %d, %d requests, stderr %q", r.code, srv.Requests(), r.stderr)
	}

	u.writeConfig("profile = \"local\"\n[profiles.local]\nbase_url = \"" + srv.URL() + "\"\nmodel = \"tiny\"\nvision = true\n")
	r = u.run("-p", "describe", "-f", photo, "--json")
	var res struct {
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
		Retry    struct {
			Class     string `json:"retry_class"`
			Retryable bool   `json:"retryable"`
		} `json:"retry"`
	}
	json.Unmarshal([]byte(r.stdout), &res)
	if r.code != 1 || srv.Requests() != 1 || res.Attempts != 1 || res.Retry.Class != "bad_request" || res.Retry.Retryable ||
		!strings.Contains(r.stderr, "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj: this model does not take images: "+fix) {
		t.Fatalf("exit %d, %d requests, %+v, stderr %q", r.code, srv.Requests(), res, r.stderr)
	}
}
