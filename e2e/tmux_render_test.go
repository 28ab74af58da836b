package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"parley/internal/demo"
	"parley/internal/markdown/markdowntest"
	"parley/tui"
)

// End-to-end runs of the built binary under tmux for what a reply shows: every word of replies
// with generics, templates, comparisons and HTML, at 40, 80, 120 or 200 columns, streamed
// and reopened; tables as wide as their content; prose no wider than the reading width; print
// mode's markdown on a terminal; a reply's thinking, reopened.

// tmuxWidths are the widths the screen is read at.
var tmuxWidths = []int{40, 80, 120, 200}

// sseReply is a 200 event stream that sends text in pieces of n bytes, as an endpoint streams
// a reply, then its end.
func sseReply(text string, n int) string {
	var b strings.Builder
	chunk := func(delta string, finish string) {
		d, _ := json.Marshal(map[string]string{"content": delta})
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		fmt.Fprintf(&b, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", d, f)
	}
	for len(text) > 0 {
		k := min(n, len(text))
		for k < len(text) && text[k]&0xc0 == 0x80 {
			k++ // whole runes
		}
		chunk(text[:k], "")
		text = text[k:]
	}
	chunk("", "stop")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// corpusDocs returns the corpus of replies the markdown package is tested on, by file name.
func corpusDocs(t *testing.T) map[string]string {
	return markdowntest.Corpus(t, "../internal/markdown/testdata/corpus")
}

// unseen returns the words of src the screen does not show.
func unseen(src, screen string) []string { return markdowntest.Unseen(src, screen) }

// transcriptLines is the part of a screen between the header and the status line: the
// reply as it is drawn, without what changes from one run to the next.
func transcriptLines(screen string) []string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	end := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "┃ ") {
			end = i - 1
			break
		}
	}
	out := lines[1:max(end, 1)]
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// reopen runs parley -c again in the pane, once the last run has quit.
func (p *pane) reopen(env ...string) {
	p.t.Helper()
	p.tmux("respawn-pane", "-k", "-t", "parley", p.command(env, "-c"))
	p.waitScreen("idle")
}

// settled waits until the pane shows every word of doc and says idle, and returns the screen;
// past the deadline it returns the screen as it is, for the caller to say what is missing.
func (p *pane) settled(doc string) string {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := p.screen()
		header, _, _ := strings.Cut(s, "\n")
		if (strings.HasSuffix(strings.TrimRight(header, " "), " idle") && len(unseen(doc, s)) == 0) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// showReply runs parley at width×height with doc as the endpoint's reply to one question and
// returns the screen once the reply is stored; then the same session reopened with -c.
func showReply(t *testing.T, doc string, width, height int) (streamed, reopened string) {
	p := newPane(t, "m", demo.Options{})
	p.srv.Push(demo.Fault{Stream: sseReply(doc, 7)})
	p.start(width, height, nil)
	p.sendAndWait("show me", 1)
	streamed = p.settled(doc)
	p.key("C-d")
	p.waitGone()
	// The same pane runs parley again: a new session in a server whose last one was killed
	// races with the server's exit.
	p.reopen()
	p.waitScreen("show me")
	return streamed, p.settled(doc)
}

// internal/markdown checks every word of every document at every width; here each document
// is read off a real terminal at one of the widths in turn, and the two with goldens at every
// width.
func TestTmuxEveryWordOfTheCorpusIsOnScreen(t *testing.T) {
	t.Parallel()
	docs := corpusDocs(t)
	for i, name := range slices.Sorted(maps.Keys(docs)) {
		doc, hasGoldens := docs[name], name == "html.md" || name == "typescript.md"
		widths := []int{tmuxWidths[i%len(tmuxWidths)]}
		if hasGoldens {
			widths = tmuxWidths
		}
		for _, width := range widths {
			t.Run(fmt.Sprintf("%s at %d", name, width), func(t *testing.T) {
				t.Parallel()
				streamed, reopened := showReply(t, doc, width, 160)
				words := len(markdowntest.Words(doc))
				for what, screen := range map[string]string{"streamed": streamed, "reopened": reopened} {
					if miss := unseen(doc, screen); len(miss) > 0 {
						t.Errorf("%s: %d of %d words not on screen: %q\n%s", what, len(miss), words, miss, screen)
					}
				}
				a, b := transcriptLines(streamed), transcriptLines(reopened)
				if strings.Join(a, "\n") != strings.Join(b, "\n") {
					t.Errorf("streamed and reopened differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
				}
				if hasGoldens {
					golden.RequireEqual(t, strings.Join(a, "\n")+"\n")
				}
				t.Logf("%d words, all on screen, streamed and reopened", words)
			})
		}
	}
}

// At 200 columns a three-column table is as wide as at 120, its content's width, and prose
// wraps at the reading width (100 columns, the gutter aside), not at the screen's.
func TestTmuxTablesFitAndProseWrapsAtTheCap(t *testing.T) {
	t.Parallel()
	doc := corpusDocs(t)["typescript.md"]
	tableWidth := func(screen string) int {
		w := 0
		for _, l := range transcriptLines(screen) {
			if strings.Contains(l, "│") || strings.Contains(l, "┼") {
				w = max(w, len([]rune(strings.TrimRight(l, " "))))
			}
		}
		return w
	}
	wide, _ := showReply(t, doc, 200, 60)
	mid, _ := showReply(t, doc, 120, 60)
	if tw := tableWidth(wide); tw == 0 || tw != tableWidth(mid) || tw > 80 {
		t.Fatalf("the table is %d columns wide at 200, %d at 120:\n%s", tw, tableWidth(mid), wide)
	}
	widest := 0
	for _, l := range transcriptLines(wide) {
		widest = max(widest, len([]rune(l)))
	}
	if widest > 2+tui.DefaultReadingWidth || widest < tui.DefaultReadingWidth-12 {
		t.Fatalf("at 200 columns the widest line of the reply is %d columns, want the cap (%d):\n%s", widest, tui.DefaultReadingWidth, wide)
	}
	t.Logf("table %d columns at 120 and 200; prose %d columns at 200", tableWidth(wide), widest)
}

// Print mode on a terminal renders the reply's markdown as the chat screen does; --raw, and a
// pipe, get it as the model wrote it.

func TestTmuxPrintModeRendersMarkdownOnATerminal(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	run := func(name string, flags ...string) string {
		cmd := fmt.Sprintf("env PARLEY_HOME=%s %s -p hello --base-url %s --model m %s; echo exit-$?; sleep 60",
			p.home, p.bin, p.srv.URL(), strings.Join(flags, " "))
		p.tmux("new-window", "-d", "-t", "parley:", "-n", name, cmd)
		return p.waitWindow(name, "exit-0")
	}
	p.newSession("-d", "-s", "parley", "-x", "100", "-y", "40", "sleep 120")
	rendered := run("rendered")
	// The demo's greeting: a list, and flags as inline code.
	if strings.Contains(rendered, "`--base-url`") || strings.Contains(rendered, "- *What are the keys?*") ||
		!strings.Contains(rendered, "• What are the keys?") {
		t.Fatalf("on a terminal the markdown is not rendered:\n%s", rendered)
	}
	raw := run("raw", "--raw")
	if !strings.Contains(raw, "`--base-url`") || !strings.Contains(raw, "- *What are the keys?*") {
		t.Fatalf("--raw did not write the markdown as sent:\n%s", raw)
	}
	piped := run("piped", "| cat")
	if !strings.Contains(piped, "`--base-url`") {
		t.Fatalf("piped, the markdown is not as sent:\n%s", piped)
	}
}

// waitWindow waits until window name of the pane's session shows text, and returns what it
// shows.
func (p *pane) waitWindow(name, text string) string {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := p.tmux("capture-pane", "-p", "-t", "parley:"+name)
		if strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %q in window %s:\n%s", text, name, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// thoughtLine is the collapsed line of a reply's thinking once it is done.
var thoughtLine = regexp.MustCompile(`▸ Thought for \d+s · [\d.,]+k? tok`)

// A reply with thinking, reopened, says the same "Thought for Ns · N tok" as when it ended,
// the tokens being the endpoint's count of reasoning tokens.
func TestTmuxThoughtReadsTheSameReopened(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	p.srv.Push(demo.Fault{Think: demo.ThinkReasoningContent, ThinkFor: 2 * time.Second})
	p.start(100, 30, nil)
	p.sendAndWait("think about it", 1)
	// The reply is stored before the screen takes its end, and until then the line counts
	// its tokens as an estimate ("~89 tok"): the endpoint's count is drawn once it is idle.
	before := thoughtLine.FindString(p.waitScreen("idle"))
	if before == "" || before == "▸ Thought for 0s" {
		t.Fatalf("no duration after the reply: %q\n%s", before, p.screen())
	}
	p.key("C-d")
	p.waitGone()
	p.reopen()
	after := thoughtLine.FindString(p.waitScreen("▸ Thought"))
	if after != before {
		t.Fatalf("reopened the reply says %q, before %q\n%s", after, before, p.screen())
	}
	t.Logf("%s, streamed and reopened", after)
}
