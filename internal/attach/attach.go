// Package attach puts text files, images and piped text into an operator message: the prompt,
// the piped text after a blank line, then each text file as a fenced block headed by its path;
// images go with the message as images (PNG, JPEG, WebP, GIF, told by their bytes). A file
// that is missing, binary or over the size limit is refused with an error naming it, so that
// nothing half-attached is ever sent.
package attach

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"parley/internal/chat"
	"parley/internal/sanitize"
)

// DefaultMaxBytes is the largest file attached when config.toml sets no max_attachment_bytes.
const DefaultMaxBytes = 256 << 10

// Limits are the largest attachments read, text and images apart: a photo weighs what no
// text file a model reads does.
type Limits struct{ Text, Image int64 }

// DefaultLimits are the limits when config.toml sets none.
var DefaultLimits = Limits{Text: DefaultMaxBytes, Image: DefaultMaxImageBytes}

// File is a file read for attaching: text, or, when Image is set, an image.
type File struct {
	// Path is the path as the operator gave it: the heading of its block.
	Path  string
	Text  string
	Image *Image
}

// Error is a refused attachment: Name is the file (or "stdin"), Reason why, with the fix.
type Error struct {
	Name, Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("cannot attach %s: %s", sanitize.Name(e.Name), e.Reason)
}

// Read reads the file at path for attaching: an image when its bytes say it is one (scaled
// down when it is large, see PrepareImage), else text. A missing file, a directory, a pipe or
// device, a file over its limit, and one that is neither UTF-8 text nor an image are refused
// with an *Error.
func Read(path string, lim Limits) (File, error) {
	// Looked at before it is opened: opening a pipe with no writer waits for one forever.
	info, err := os.Stat(path)
	if err != nil {
		return File{}, &Error{path, openReason(err)}
	}
	switch {
	case info.IsDir():
		return File{}, &Error{path, "it is a directory; attach the files in it one by one"}
	case !info.Mode().IsRegular():
		return File{}, &Error{path, "it is a pipe or a device, not a file; pipe it to parley instead (… | parley -p PROMPT)"}
	}
	f, err := os.Open(path)
	if err != nil {
		return File{}, &Error{path, openReason(err)}
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head, _ := r.Peek(12)
	_, isImage := ImageType(head)
	limit, tooBig := lim.Text, tooLarge
	if isImage {
		limit, tooBig = lim.Image, imageTooLarge
	}
	if info.Size() > limit {
		return File{}, tooBig(path, info.Size(), limit)
	}
	// Read one byte past the limit: a file that grew is still caught.
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return File{}, &Error{path, err.Error()}
	}
	if isImage {
		im, err := PrepareImage(filepath.Base(path), b, lim.Image)
		if err != nil {
			return File{}, &Error{path, err.(*Error).Reason}
		}
		return File{Path: path, Image: &im}, nil
	}
	if err := Check(path, b, lim.Text); err != nil {
		return File{}, err
	}
	return File{Path: path, Text: string(b)}, nil
}

// Images are the images among files, in order.
func Images(files []File) []chat.Image {
	var out []chat.Image
	for _, f := range files {
		if f.Image != nil {
			out = append(out, f.Image.Image)
		}
	}
	return out
}

// Check refuses text named name that is over limit bytes or is not UTF-8 text: a NUL byte or
// an invalid sequence means a binary file, which a model cannot read as text. An image is
// read with PrepareImage instead.
func Check(name string, b []byte, limit int64) error {
	if int64(len(b)) > limit {
		return tooLarge(name, int64(len(b)), limit)
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return &Error{name, binaryReason}
	}
	return nil
}

// binaryReason refuses bytes that are neither text nor an image parley sends.
const binaryReason = "it is binary, not text or an image parley sends (PNG, JPEG, WebP, GIF)"

func openReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file; check the path"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied; check the file's mode"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func imageTooLarge(name string, size, limit int64) error {
	return &Error{name, fmt.Sprintf("%s is over the %s image limit; raise max_image_bytes in config.toml to attach it", Size(size), Size(limit))}
}

func tooLarge(name string, size, limit int64) error {
	return &Error{name, fmt.Sprintf("%s is over the %s limit; raise max_attachment_bytes in config.toml to attach it", Size(size), Size(limit))}
}

// Size is a size as the operator reads it: bytes, KiB or MiB.
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// Compose is the text of the operator message that sends prompt with piped text and files: the
// prompt, a blank line and the piped text, then each text file as a fenced block headed by its
// path (images go apart: Images). Empty parts are left out.
func Compose(prompt, piped string, files []File) string {
	var parts []string
	for _, p := range []string{prompt, piped} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, strings.TrimRight(p, "\n"))
		}
	}
	for _, f := range files {
		if f.Image == nil {
			parts = append(parts, Block(f))
		}
	}
	return strings.Join(parts, "\n\n")
}

// Block is f as a fenced block headed by its path. The fence is longer than any run of
// backticks in the text, so the text cannot close it; the file's extension names its language.
func Block(f File) string {
	fence := strings.Repeat("`", max(3, longestRun(f.Text, '`')+1))
	return f.Path + "\n" + fence + language(f.Path) + "\n" + strings.TrimRight(f.Text, "\n") + "\n" + fence
}

// language is the language Block names for the file at path: its extension, when that is a
// word.
func language(path string) string {
	lang := strings.TrimPrefix(filepath.Ext(path), ".")
	if strings.ContainsFunc(lang, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) {
		return ""
	}
	return lang
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
