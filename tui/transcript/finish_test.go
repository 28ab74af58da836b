package transcript

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// numberedLines returns n lines "line 1"… "line n", each ended by a line end.
func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// pasteList is a 70×30 transcript of msgs, told ctrl+o expands, with the pastes noted first.
func pasteList(msgs []stored.Message, pastes ...string) *List {
	l := New(Styles{})
	l.SetSize(70, 30)
	l.SetOptions(Options{ExpandKey: "ctrl+o"})
	for _, p := range pastes {
		l.NotePaste(p, fmt.Sprintf("[pasted %d lines]", strings.Count(p, "\n")))
	}
	l.Reset(msgs)
	l.Prepare()
	return l
}

// A paste that ends its message was sent without its last line end: it still shows collapsed,
// with what was typed before it, and the message's text stays whole.
func TestAPasteEndingItsMessageShowsCollapsed(t *testing.T) {
	paste := numberedLines(50)
	content := "why does this fail?\n" + strings.TrimRight(paste, "\n")
	l := pasteList([]stored.Message{{ID: 1, Role: chat.RoleUser, Content: content}}, paste)
	got := plain(l)
	if !strings.Contains(got, "why does this fail?\n") || !strings.Contains(got, "[pasted 50 lines · ctrl+o expands]") || strings.Contains(got, "line 7") {
		t.Fatalf("the paste is not collapsed:\n%s", got)
	}
	if m, _ := l.Message(1); m.Content != content {
		t.Fatalf("the message's text changed: %q", m.Content)
	}
	// An edit holds the paste collapsed as the input box did.
	pieces := l.Collapsed(1)
	if len(pieces) != 1 || pieces[0].Label != "[pasted 50 lines]" || l.Text(1)[pieces[0].Start:pieces[0].End] != strings.TrimRight(paste, "\n") {
		t.Fatalf("collapsed pieces: %+v", pieces)
	}
}

// A long message that no paste noted is known in (one stored before the screen opened) shows
// its first lines and how many more; a short one shows whole, and has nothing for ctrl+o.
func TestALongMessageReopenedShowsItsFirstLines(t *testing.T) {
	l := pasteList([]stored.Message{{ID: 1, Role: chat.RoleUser, Content: numberedLines(40)}})
	got := plain(l)
	if !strings.Contains(got, "line 3\n") || strings.Contains(got, "line 4") || !strings.Contains(got, "[… 37 more lines · ctrl+o expands]") {
		t.Fatalf("the long message is not collapsed to its first lines:\n%s", got)
	}
	short := pasteList([]stored.Message{{ID: 1, Role: chat.RoleUser, Content: numberedLines(12)}})
	if got := plain(short); !strings.Contains(got, "line 12") || strings.Contains(got, "expands") || short.HasPastes() {
		t.Fatalf("a 12-line message is collapsed:\n%s", got)
	}
}

// ctrl+o shows the selected message whole (or the one a selected reply answers), and only it;
// with nothing selected, the newest that has something collapsed.
func TestTogglePastesActsOnTheSelectedMessage(t *testing.T) {
	first, second := numberedLines(30), strings.ReplaceAll(numberedLines(30), "line", "row")
	l := pasteList([]stored.Message{
		{ID: 1, Role: chat.RoleUser, Content: "one:\n" + first + "end"},
		{ID: 2, Role: chat.RoleAssistant, AnchorID: 1, Status: chat.StatusSucceeded, Content: "first answer"},
		{ID: 3, Role: chat.RoleUser, Content: "two:\n" + second + "end"},
		{ID: 4, Role: chat.RoleAssistant, AnchorID: 3, Status: chat.StatusSucceeded, Content: "second answer"},
	}, first, second)
	l.SetSize(70, 200)
	if got := plain(l); strings.Count(got, "[pasted 30 lines · ctrl+o expands]") != 2 {
		t.Fatalf("both pastes should show collapsed:\n%s", got)
	}
	l.TogglePastes()
	if got := plain(l); !strings.Contains(got, "row 17") || strings.Contains(got, "line 17") || !l.PastesShown() {
		t.Fatalf("with nothing selected ctrl+o should show the newest paste whole, only it:\n%s", got)
	}
	l.TogglePastes()
	l.Select(2)
	l.TogglePastes()
	if got := plain(l); !strings.Contains(got, "line 17") || strings.Contains(got, "row 17") {
		t.Fatalf("ctrl+o on a reply should show the message it answers whole:\n%s", got)
	}
	l.TogglePastes()
	if got := plain(l); strings.Contains(got, "line 17") || l.PastesShown() {
		t.Fatalf("a second ctrl+o should collapse it again:\n%s", got)
	}
}

// A thinking count the endpoint gave is shown as it is; one the screen estimated is marked ~.
func TestThinkingTokensSayWhetherTheyAreEstimated(t *testing.T) {
	reply := stored.Message{ID: 2, Role: chat.RoleAssistant, AnchorID: 1, Status: chat.StatusSucceeded,
		Content: "42", Reasoning: strings.Repeat("abcd", 300), Thought: 13e9}
	msgs := []stored.Message{{ID: 1, Role: chat.RoleUser, Content: "why?"}, reply}
	if got := plain(newList(msgs, 70, 20)); !strings.Contains(got, "▸ Thought for 13s · ~300 tok") {
		t.Fatalf("an estimate is not marked:\n%s", got)
	}
	msgs[1].ReasoningTokens = 337
	if got := plain(newList(msgs, 70, 20)); !strings.Contains(got, "▸ Thought for 13s · 337 tok") || strings.Contains(got, "~") {
		t.Fatalf("the endpoint's count is not shown plain:\n%s", got)
	}
	// While the model thinks the count is an estimate, until the endpoint's arrives.
	l := newList(msgs[:1], 70, 20)
	l.Append(stored.Message{ID: 2, Role: chat.RoleAssistant, AnchorID: 1, Status: chat.StatusRunning})
	l.StartStreaming(2)
	l.AppendReasoning(2, strings.Repeat("abcd", 100), time.Time{}, time.Unix(100, 0))
	l.Refresh()
	l.Prepare()
	if got := plain(l); !strings.Contains(got, "Thinking… 0s · ~100 tok") {
		t.Fatalf("the streamed count is not marked as an estimate:\n%s", got)
	}
	l.SetThinkingTokens(2, 97)
	l.Refresh()
	l.Prepare()
	if got := plain(l); !strings.Contains(got, "· 97 tok") || strings.Contains(got, "~") {
		t.Fatalf("the endpoint's count is not shown plain once it came:\n%s", got)
	}
}

// Before the first message the transcript says what parley is, whether it talks to the
// demo and how to point it elsewhere, and the keys that help and leave; the first message
// takes its place.
func TestTheFirstScreenSaysWhatThisIs(t *testing.T) {
	l := New(Styles{})
	l.SetSize(100, 30)
	l.SetOptions(Options{Demo: true, ExpandKey: "ctrl+o", HelpKey: "?", QuitKey: "ctrl+c"})
	view := l.View()
	if len(view) != 30 {
		t.Fatalf("%d lines, want the window's 30", len(view))
	}
	got := plain(l)
	for _, want := range []string{"parley", "built-in offline demo", "OPENAI_API_KEY=… parley", "--base-url URL --model NAME",
		"docs/configuration.md", "? lists the keys · ctrl+c or /quit leaves"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the first screen does not say %q:\n%s", want, got)
		}
	}
	// Centred: the block stands in the middle, each line about as far from both edges.
	first := slices.IndexFunc(view, func(s string) bool { return strings.TrimSpace(s) != "" })
	if first < 8 {
		t.Fatalf("the text starts at line %d, not in the middle:\n%s", first, got)
	}
	for _, line := range strings.Split(got, "\n") {
		if text := strings.TrimSpace(line); text != "" {
			left := len(line) - len(strings.TrimLeft(line, " "))
			if right := 100 - left - len([]rune(text)); left < right-3 || left > right+3 {
				t.Fatalf("%q is not centred: %d columns left, %d right", text, left, right)
			}
		}
	}
	l.SetOptions(Options{Endpoint: "ollama · llama3.2", HelpKey: "?", QuitKey: "ctrl+c"})
	if got := plain(l); strings.Contains(got, "demo") || !strings.Contains(got, "Talking to ollama · llama3.2.") {
		t.Fatalf("a real endpoint's first screen:\n%s", got)
	}
	l.SetOptions(Options{Opening: true, HelpKey: "?", QuitKey: "ctrl+c"})
	if got := strings.TrimSpace(plain(l)); got != "" {
		t.Fatalf("the first screen shows while the session is read:\n%s", got)
	}
	l.Append(stored.Message{ID: 1, Role: chat.RoleUser, Content: "hello"})
	l.Prepare()
	if got := plain(l); strings.Contains(got, "lists the keys") || !strings.Contains(got, "hello") {
		t.Fatalf("the first message did not take the first screen's place:\n%s", got)
	}
}
