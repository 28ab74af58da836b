// Package sanitize neutralises terminal control sequences: in text from a model or a provider
// the chat screen shows, and at every exit to a terminal (Writer), where names a user typed or
// a server gave are written as text (Name).
package sanitize

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// String returns s with every terminal control sequence removed, so that text from a model
// or a provider can be shown without letting it move the cursor, set the window title, write
// the clipboard (OSC 52) or change the terminal's state. It removes CSI, OSC, DCS, SOS, PM and
// APC sequences, other escape sequences, lone ESC bytes, C0 controls other than \n and \t,
// DEL, C1 controls and invalid UTF-8. Printable text, \n and \t are kept.
func String(s string) string {
	var sn sanitizer
	var b strings.Builder
	b.Grow(len(s))
	sn.write(&b, s)
	return b.String()
}

// Stream is String for text that arrives in pieces, such as a streamed reply: it keeps its
// place inside an escape sequence or a split rune from one piece to the next, so a sequence cut
// across two deltas is removed whole. The zero value is ready to use.
type Stream struct {
	sn sanitizer
	b  strings.Builder
}

// Clean returns the printable part of text, given the pieces cleaned before it.
func (s *Stream) Clean(text string) string {
	s.b.Reset()
	s.sn.write(&s.b, text)
	return s.b.String()
}

// Append writes the printable part of text to b, given the pieces cleaned before it: Clean
// for a caller that keeps the cleaned text itself.
func (s *Stream) Append(b *strings.Builder, text string) {
	s.sn.write(b, text)
}

// Writer is a stream parley writes to a terminal through: everything written is neutralised
// as String does, a sequence or a rune split across writes carried to the next, so a path
// that writes there cannot forget it. A string sequence (OSC, DCS…) left open ends at the next
// line, so one line cannot swallow the lines after it.
type Writer struct {
	w   io.Writer
	san Stream
}

// NewWriter returns w behind the neutraliser; w is returned as it is when it is a Writer.
func NewWriter(w io.Writer) *Writer {
	if n, ok := w.(*Writer); ok {
		return n
	}
	return &Writer{w: w}
}

// Write neutralises p and writes what is left; it reports p written whole when that is.
func (n *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(n.w, n.san.Clean(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Raw returns the stream under w's neutraliser, or w when it has none: for the sequences
// parley draws with itself (the chat screen, rendered markdown, a redrawn line). Whatever
// text goes there must have been neutralised first.
func Raw(w io.Writer) io.Writer {
	if n, ok := w.(*Writer); ok {
		return n.w
	}
	return w
}

// Name is how a line names s, a path, flag, profile or model that a user typed or a server
// gave: s itself when every rune of it prints, otherwise quoted with each control escaped
// (\x1b, \a, \u009b, \n), so the line still says what it was and a terminal shows it as text.
func Name(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// sanState is where the sanitizer is inside an escape sequence.
type sanState uint8

const (
	sanGround    sanState = iota // plain text
	sanEsc                       // after ESC
	sanEscInter                  // after ESC and intermediate bytes (ESC ( B and the like)
	sanCSI                       // inside a control sequence (ESC [ or C1 CSI)
	sanString                    // inside OSC, DCS, SOS, PM or APC, until BEL or ST
	sanStringEsc                 // ESC seen inside a string: ST if '\' follows
)

// sanitizer is String as a state machine that keeps its state between writes, so a reply
// streamed in pieces is cleaned in O(new text) even when a sequence is split across deltas.
type sanitizer struct {
	state sanState
	// partial holds the first bytes of a UTF-8 rune split across writes (at most 3).
	partial []byte
}

// write appends the printable part of s to b.
func (sn *sanitizer) write(b *strings.Builder, s string) {
	if len(sn.partial) > 0 {
		s = string(sn.partial) + s // only when a rune was split, which is rare
		sn.partial = sn.partial[:0]
	}
	// Keep a rune cut at the end of s for the next write.
	if i := lastRuneStart(s); i >= 0 && !utf8.FullRuneInString(s[i:]) {
		sn.partial = append(sn.partial, s[i:]...)
		s = s[:i]
	}
	sn.run(b, s)
}

// lastRuneStart returns the index of the last byte of s that can start a rune, looking at most
// utf8.UTFMax bytes back, or -1.
func lastRuneStart(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return -1
}

func (sn *sanitizer) run(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		if sn.state == sanGround {
			// Plain text, nearly all of it, is copied a run at a time.
			n := plainPrefix(s[i:])
			b.WriteString(s[i : i+n])
			if i += n; i == len(s) {
				return
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			continue // invalid UTF-8: a stray 0x80–0x9F byte may be read as C1 by some terminals
		}
		switch sn.state {
		case sanGround:
			sn.ground(b, r)
		case sanEsc:
			switch {
			case r == '[':
				sn.state = sanCSI
			case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
				sn.state = sanString
			case r >= 0x20 && r <= 0x2f:
				sn.state = sanEscInter
			case r >= 0x30 && r <= 0x7e:
				sn.state = sanGround
			default:
				// Not an escape sequence: drop the ESC, keep what follows.
				sn.state = sanGround
				sn.ground(b, r)
			}
		case sanEscInter:
			sn.sequence(b, r, 0x2f) // intermediates, then a final byte
		case sanCSI:
			sn.sequence(b, r, 0x3f) // parameters and intermediates, then a final byte
		case sanString:
			switch r {
			case 0x07, 0x9c: // BEL, ST
				sn.state = sanGround
			case 0x1b:
				sn.state = sanStringEsc
			case '\n':
				// Left open: the next line is text again.
				sn.state = sanGround
				b.WriteByte('\n')
			}
		case sanStringEsc:
			if r == '\\' {
				sn.state = sanGround
				continue
			}
			// An ESC inside a string ends it and starts a new sequence.
			sn.state = sanEsc
			i -= size
		}
	}
}

// sequence handles r inside an escape or control sequence: bytes from 0x20 up to last go on
// with it, the bytes after them up to 0x7e are its final byte, and anything else cuts it short
// and is read as text.
func (sn *sanitizer) sequence(b *strings.Builder, r, last rune) {
	switch {
	case r >= 0x20 && r <= last:
	case r > last && r <= 0x7e:
		sn.state = sanGround
	default:
		sn.state = sanGround
		sn.ground(b, r)
	}
}

// plainPrefix returns the length of the longest prefix of s that ground would copy unchanged:
// valid UTF-8 without controls other than \n and \t.
func plainPrefix(s string) int {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r <= 0x9f || (r == utf8.RuneError && size == 1) {
			return i // C1 controls and invalid UTF-8
		}
		i += size
	}
	return i
}

// ground handles r outside any sequence.
func (sn *sanitizer) ground(b *strings.Builder, r rune) {
	switch {
	case r == '\n' || r == '\t':
		b.WriteRune(r)
	case r == 0x1b:
		sn.state = sanEsc
	case r == 0x9b:
		sn.state = sanCSI
	case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
		sn.state = sanString
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		// other controls are dropped
	default:
		b.WriteRune(r)
	}
}
