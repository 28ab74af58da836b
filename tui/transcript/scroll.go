package transcript

// This file moves the transcript's window (scrolling, following the end) and its selection
// of a reply. Positions are lines of renders, found by walking entries from a known line, so
// moving costs only the lines passed.

import "strings"

// linePos is a line of the transcript: line number line of entry entry's render.
type linePos struct{ entry, line int }

// bottomTop returns the top line of the window that ends at the last line.
func (t *List) bottomTop() linePos {
	need := t.height
	for i := len(t.entries) - 1; i >= 0; i-- {
		n := len(t.lines(i))
		if n >= need {
			return linePos{i, n - need}
		}
		need -= n
	}
	return linePos{}
}

// current returns the top line of the window as it is shown now.
func (t *List) current() linePos {
	if t.follow {
		return t.bottomTop()
	}
	return t.top
}

// back returns the line n lines above p, stopping at the first line.
func (t *List) back(p linePos, n int) linePos {
	for n > 0 {
		if p.line >= n {
			p.line -= n
			return p
		}
		n -= p.line
		if p.entry == 0 {
			return linePos{}
		}
		p.entry--
		p.line = len(t.lines(p.entry))
	}
	return p
}

// forward returns the line n lines below p; past the last line it returns {Len(), 0}.
func (t *List) forward(p linePos, n int) linePos {
	for n > 0 && p.entry < len(t.entries) {
		rest := len(t.lines(p.entry)) - p.line
		if rest > n {
			p.line += n
			return p
		}
		n -= rest
		p = linePos{p.entry + 1, 0}
	}
	return p
}

// setTop shows the window from p, and follows when that window reaches the last line.
func (t *List) setTop(p linePos) {
	end := t.forward(p, t.height)
	if end.entry >= len(t.entries) {
		t.follow = true
		return
	}
	t.follow, t.top = false, p
}

// clampTop keeps the top line inside its entry after a change of width.
func (t *List) clampTop() {
	if t.follow || len(t.entries) == 0 || t.width == 0 {
		return
	}
	if t.top.entry >= len(t.entries) {
		t.follow = true
		return
	}
	if n := len(t.lines(t.top.entry)); t.top.line >= n {
		t.top.line = n - 1
	}
}

// ScrollUp moves the window n lines up and stops following.
func (t *List) ScrollUp(n int) {
	p := t.back(t.current(), n)
	t.setTop(p)
}

// ScrollDown moves the window n lines down; reaching the end follows again.
func (t *List) ScrollDown(n int) {
	if t.follow {
		return
	}
	t.setTop(t.forward(t.top, n))
}

// GotoTop shows the first message.
func (t *List) GotoTop() { t.setTop(linePos{}) }

// GotoBottom shows the end and follows it.
func (t *List) GotoBottom() { t.follow = true }

// AtTop reports whether the window shows the first line.
func (t *List) AtTop() bool { return t.current() == linePos{} }

// Following reports whether the window sticks to the end.
func (t *List) Following() bool { return t.follow }

// Selected returns the selected reply's message id, or 0.
func (t *List) Selected() int64 {
	if t.sel < 0 || t.sel >= len(t.entries) {
		return 0
	}
	return t.entries[t.sel].message.ID
}

// SelectLast selects the newest reply.
func (t *List) SelectLast() {
	t.sel = -1
	t.selectFrom(len(t.entries)-1, -1)
}

// SelectPrev selects the reply before the selected one, if any.
func (t *List) SelectPrev() { t.selectFrom(t.sel-1, -1) }

// SelectNext selects the reply after the selected one, if any.
func (t *List) SelectNext() { t.selectFrom(t.sel+1, 1) }

// ClearSelection selects nothing.
func (t *List) ClearSelection() { t.sel = -1 }

// selectFrom selects the first reply or operator message from index i in direction dir and
// scrolls it into view.
func (t *List) selectFrom(i, dir int) {
	for ; i >= 0 && i < len(t.entries); i += dir {
		if selectable(t.entries[i].message) {
			t.sel = i
			t.reveal(i)
			return
		}
	}
}

// reveal scrolls so that entry i is on screen, its top first when it is taller than the window.
func (t *List) reveal(i int) {
	start := t.current()
	end := t.forward(start, t.height)
	if (start.entry < i || start == linePos{i, 0}) && end.entry > i {
		return // fully visible
	}
	if start.entry >= i {
		t.setTop(linePos{i, 0})
		return
	}
	// Below the window: bring its last line to the bottom, unless it is taller than the window.
	p := t.back(linePos{i + 1, 0}, t.height)
	if p.entry < i {
		t.setTop(p)
	} else {
		t.setTop(linePos{i, 0})
	}
}

// Select selects message id, a reply or an operator message, and scrolls it into view; it
// reports whether it is shown.
func (t *List) Select(id int64) bool {
	for i, e := range t.entries {
		if e.message.ID == id && selectable(e.message) {
			t.sel = i
			t.reveal(i)
			return true
		}
	}
	return false
}

// Find selects the nearest message from the selected one in direction dir (-1 earlier, 1
// later; from the end when none is selected) whose text holds query, case aside, and scrolls
// it into view; it reports whether one does.
func (t *List) Find(query string, dir int) bool {
	q := strings.ToLower(query)
	i := t.sel + dir
	if t.sel < 0 {
		i = len(t.entries) - 1
	}
	for ; i >= 0 && i < len(t.entries); i += dir {
		if e := t.entries[i]; selectable(e.message) && strings.Contains(strings.ToLower(e.text.String()), q) {
			t.sel = i
			t.reveal(i)
			return true
		}
	}
	return false
}
