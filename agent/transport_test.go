package agent

import (
	"strings"
	"testing"
)

func TestSSEObserverKeepsErrorFramesAcrossReads(t *testing.T) {
	stream := ": keep-alive\n\n" +
		`data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n" +
		`error: {"code":500,"message":"llama.cpp failed","type":"server_error"}` + "\n\n" +
		"event: error\n" +
		`data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"error: not a frame"}}]}` + "\n\n" +
		"data: [DONE]\n\n"
	for _, step := range []int{1, 3, 7, 16, 17, len(stream)} {
		var c capture
		o := &sseObserver{c: &c}
		for i := 0; i < len(stream); i += step {
			o.observe([]byte(stream[i:min(i+step, len(stream))]))
		}
		want := `error: {"code":500,"message":"llama.cpp failed","type":"server_error"}` + "\n" +
			"event: error\n" +
			`data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n"
		if got := c.frames.String(); got != want {
			t.Errorf("read in steps of %d: frames\n%q\nwant\n%q", step, got, want)
		}
		if !c.done {
			t.Errorf("read in steps of %d: [DONE] not seen", step)
		}
	}
}

func TestSSEObserverBoundsWhatItKeeps(t *testing.T) {
	var c capture
	o := &sseObserver{c: &c}
	o.observe([]byte(`data: {"error":{"message":"` + strings.Repeat("x", 2*maxCapture) + `"}}` + "\n"))
	if c.frames.Len() != maxCapture {
		t.Fatalf("kept %d bytes, want the cap %d", c.frames.Len(), maxCapture)
	}
}
