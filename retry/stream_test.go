package retry

import "testing"

func TestStreamError(t *testing.T) {
	for _, tc := range []struct {
		name, sse, frame string
	}{
		{"openai data error", "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"error\":{\"message\":\"x\"}}\n\ndata: [DONE]\n\n",
			`{"error":{"message":"x"}}`},
		{"anthropic event error", "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: error\r\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\r\n\r\n",
			`{"type":"error","error":{"type":"overloaded_error"}}`},
		{"event error with a payload that is not json", "event: error\ndata: upstream died\n\n", `upstream died`},
		{"llama.cpp error field", "error: {\"code\":500,\"message\":\"y\"}\n\ndata: [DONE]\n\n", `{"code":500,"message":"y"}`},
		{"data without a space", "data:{\"error\":\"z\"}\n\n", `{"error":"z"}`},
		{"responses api line", "{\"type\":\"response.created\"}\n{\"type\":\"error\",\"code\":\"server_error\",\"message\":\"m\"}\n",
			`{"type":"error","code":"server_error","message":"m"}`},
		{"flat typed error", `{"type": "server_error", "code": "server_error", "message": "m"}`,
			`{"type": "server_error", "code": "server_error", "message": "m"}`},
		{"content filter finish", "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n",
			`{"choices":[{"delta":{},"finish_reason":"content_filter"}]}`},
		{"keep-alive comments only", ": keep-alive\n\n: keep-alive\n\n", ""},
		{"ordinary stream", "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n: OPENROUTER PROCESSING\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", ""},
		{"null error is no error", "data: {\"error\":null,\"choices\":[]}\n\n", ""},
		{"error event ended before its data", "event: error\n\ndata: {\"choices\":[]}\n\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame, ok := StreamError([]byte(tc.sse))
			if ok != (tc.frame != "") || string(frame) != tc.frame {
				t.Errorf("got %q, %v; want %q", frame, ok, tc.frame)
			}
		})
	}
}
