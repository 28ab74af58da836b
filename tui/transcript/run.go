package transcript

import (
	"parley/internal/chat"
	"parley/internal/markdown"
)

// This file follows the runs that write replies in the transcript: their status, their
// streamed text, and the renders redone once per frame within a quota of work.

// SetStatus records a new run status for message id (and its failure, if any).
func (t *List) SetStatus(id int64, st chat.Status, fail *chat.Classification) {
	if e := t.byID[id]; e != nil {
		e.message.Status, e.message.Retry = st, fail
		e.version++
	}
}

// SetNote shows note under reply id, or nothing when note is empty.
func (t *List) SetNote(id int64, note string) {
	if e := t.byID[id]; e != nil && e.note != note {
		e.note = note
		e.version++
	}
}

// SetHeld says whether queued replies wait for the operator, who sends them with sendKey,
// rather than for the reply before them.
func (t *List) SetHeld(held bool, sendKey string) {
	// The key shows only while replies are held.
	changed := held != t.held || (held && sendKey != t.sendKey)
	t.held, t.sendKey = held, sendKey
	if !changed {
		return
	}
	for _, e := range t.entries {
		if e.message.Status == chat.StatusQueued {
			e.version++
		}
	}
}

// StartStreaming marks reply id as being written by a running run.
func (t *List) StartStreaming(id int64) {
	if e := t.byID[id]; e != nil {
		e.streaming = true
		e.message.Status = chat.StatusRunning
		t.stream = e
		e.version++
	}
}

// AppendDelta adds streamed text to reply id. The text shows on the next Refresh.
func (t *List) AppendDelta(id int64, text string) {
	if e := t.byID[id]; e != nil {
		e.san.Append(&e.text, text)
		e.version++
	}
}

// SetFinishReason records why reply id ended, as the endpoint said ("length": at the limit).
func (t *List) SetFinishReason(id int64, reason string) {
	if e := t.byID[id]; e != nil {
		e.message.FinishReason = reason
		e.version++
	}
}

// SetModel names the model that wrote reply id, as the endpoint named it; "" leaves it.
func (t *List) SetModel(id int64, model string) {
	if e := t.byID[id]; e != nil && model != "" && e.message.Model != model {
		e.message.Model = model
		e.version++
	}
}

// Refresh renders again the reply that is streaming, if it has changed since its last render,
// and the unfinished ones. It is called once per frame, so a burst of deltas costs one render.
func (t *List) Refresh() {
	if e := t.stream; e != nil && e.cache.version != e.version {
		e.cache.lines = nil
	}
	for _, e := range t.unfinished {
		e.cache.lines = nil
	}
}

// Quota gives the transcript n work of markdown to render until the next call: the work of
// one message is bounded, however long the replies on screen.
func (t *List) Quota(n int) { t.quota = n }

// QuotaLeft returns how much of the work Quota gave is left: what rendering took since is
// the rest.
func (t *List) QuotaLeft() int { return t.quota }

// Progress returns how far the render of reply id's markdown has got: nothing cut for a
// reply that is not shown, or whose render is done and dropped.
func (t *List) Progress(id int64) markdown.Progress {
	if e := t.byID[id]; e != nil {
		return e.md.Progress(e.text.String())
	}
	return markdown.Progress{}
}

// Unfinished reports whether the last Prepare left a render on screen unfinished: more
// frames are needed.
func (t *List) Unfinished() bool { return len(t.unfinished) > 0 }

// Finish ends the streaming of reply id with its final status; it renders once more and is
// then frozen.
func (t *List) Finish(id int64, st chat.Status, fail *chat.Classification) {
	if e := t.byID[id]; e != nil {
		e.streaming = false
		if t.stream == e {
			t.stream = nil
		}
		e.message.Status, e.message.Retry = st, fail
		e.version++
	}
}
