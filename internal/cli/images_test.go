package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

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
	fix := "choose a vision model (/model) or remove the image"

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
