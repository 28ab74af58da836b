package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ErrNoImage means the clipboard holds no image; ErrNoReader that no tool here reads one.
var (
	ErrNoImage  = errors.New("the clipboard holds no image")
	ErrNoReader = errors.New("no tool here reads an image from the clipboard: install wl-clipboard (Wayland), xclip (X) or pngpaste (macOS)")
)

// readers are the tools that read an image from the clipboard, in the order tried, each with
// the variable of the session it serves ("" for any), the command that lists what the
// clipboard holds (nil: it reads an image or fails) and the command that reads one type.
var readers = []struct {
	session string
	list    []string
	read    func(mime string) []string
}{
	{"WAYLAND_DISPLAY", []string{"wl-paste", "--list-types"}, func(mime string) []string { return []string{"wl-paste", "--no-newline", "--type", mime} }},
	{"DISPLAY", []string{"xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"}, func(mime string) []string {
		return []string{"xclip", "-selection", "clipboard", "-t", mime, "-o"}
	}},
	{"", nil, func(string) []string { return []string{"pngpaste", "-"} }},
}

// imageTypes are the types asked for, in the order preferred.
var imageTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

// Image reads the image on the clipboard with the first tool that serves the session getenv
// describes and that lookPath finds. It returns ErrNoImage when the clipboard holds none and
// ErrNoReader when no tool is there; each run is bounded by Timeout.
func Image(ctx context.Context, getenv func(string) string, lookPath func(string) (string, error)) ([]byte, error) {
	for _, r := range readers {
		if r.session != "" && getenv(r.session) == "" {
			continue
		}
		tool := r.read("")[0]
		if _, err := lookPath(tool); err != nil {
			continue
		}
		mime := "image/png"
		if r.list != nil {
			types, err := output(ctx, r.list)
			if err != nil {
				return nil, err
			}
			if mime = offered(string(types)); mime == "" {
				return nil, ErrNoImage
			}
		}
		b, err := output(ctx, r.read(mime))
		if err != nil || len(b) == 0 {
			return nil, ErrNoImage // pngpaste fails so when the clipboard holds text
		}
		return b, nil
	}
	return nil, ErrNoReader
}

// offered is the first of imageTypes among the types a clipboard lists, one a line.
func offered(types string) string {
	listed := strings.Fields(types)
	for _, t := range imageTypes {
		for _, l := range listed {
			if l == t {
				return t
			}
		}
	}
	return ""
}

// output runs args, at most Timeout, and returns what it wrote.
func output(ctx context.Context, args []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s did not finish within %s", args[0], Timeout)
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%s: %s", args[0], firstLine(msg))
		}
		return nil, fmt.Errorf("%s: %v", args[0], err)
	}
	return stdout.Bytes(), nil
}
