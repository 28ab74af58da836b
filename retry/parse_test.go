package retry

import (
	"slices"
	"strings"
	"testing"
)

func TestParseProviderErrorEnvelopes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		message    string
		status     int
		codes      []string
		types      []string
	}{
		{"openai", `{"error":{"message":"m","type":"invalid_request_error","code":"context_length_exceeded"}}`,
			"m", 0, []string{"context_length_exceeded"}, []string{"invalid_request_error"}},
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			"Overloaded", 0, nil, []string{"error", "overloaded_error"}},
		{"bare object with a raw status", `{"object":"error","message":"Rate limit exceeded","type":"rate_limited","code":"1300","raw_status_code":429}`,
			"Rate limit exceeded", 429, []string{"1300", "429"}, []string{"rate_limited"}},
		{"gemini array", `[{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED"}}]`,
			"m", 429, []string{"429", "RESOURCE_EXHAUSTED"}, nil},
		{"problem+json", `{"status":404,"title":"Not Found","detail":"Function 'f': Not found for account 'a'"}`,
			"Function 'f': Not found for account 'a'", 404, []string{"404"}, nil},
		{"cloudflare v4", `{"errors":[{"code":4006,"message":"daily allocation used up"}],"success":false,"result":null,"messages":[]}`,
			"daily allocation used up", 0, []string{"4006"}, nil},
		{"cloudflare gateway error array", `{"success":false,"result":[],"messages":[],"error":[{"code":2009,"message":"Unauthorized"}]}`,
			"Unauthorized", 0, []string{"2009"}, nil},
		{"portkey html-message", `{"html-message":"fetch failed","provider":"openai"}`, "fetch failed", 0, nil, nil},
		{"string error with its type beside it", `{"error":"Model is overloaded","error_type":"overloaded"}`,
			"Model is overloaded", 0, nil, []string{"overloaded"}},
		{"tgi in-stream status", `{"error":{"message":"m","http_status_code":422}}`, "m", 422, []string{"422"}, nil},
		{"openrouter raw as a JSON string: the innermost message",
			`{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"{\"error\":{\"message\":\"suspended due to insufficient balance\",\"type\":\"exceeded_current_quota_error\"}}"}}}`,
			"suspended due to insufficient balance", 429, []string{"429"}, []string{"exceeded_current_quota_error"}},
		{"openrouter raw as text", `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"error code: 1015"}}}`,
			"error code: 1015", 429, []string{"429"}, nil},
		{"upstream error inside a gateway's message: its status is the innermost",
			`{"error":{"message":"litellm.InternalServerError: geminiException - {\n \"error\": {\"code\": 503, \"message\": \"The model is overloaded.\"}\n}\n. Received Model Group=g","code":"500"}}`,
			"The model is overloaded.", 503, []string{"500", "503"}, nil},
		{"fastapi validation", `{"detail":[{"msg":"field required"}]}`, "field required", 0, nil, nil},
		{"json string", `"upstream timed out"`, "upstream timed out", 0, nil, nil},
		{"proxy page: its title", "<!DOCTYPE html>\n<html><head>\n<title>api.openai.com | 502: Bad gateway</title>\n<meta charset=\"UTF-8\" />",
			"api.openai.com | 502: Bad gateway", 0, nil, nil},
		{"content filter finish", `{"choices":[{"delta":{},"finish_reason":"content_filter"}]}`,
			"the provider's content filter stopped the reply", 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe, found := parseProviderError([]byte(tc.body))
			if !found || pe.message != tc.message || pe.status != tc.status {
				t.Errorf("found %v, message %q, status %d; want %q, %d", found, pe.message, pe.status, tc.message, tc.status)
			}
			slices.Sort(pe.codes)
			slices.Sort(pe.types)
			slices.Sort(tc.codes)
			slices.Sort(tc.types)
			if !slices.Equal(pe.codes, tc.codes) || !slices.Equal(pe.types, tc.types) {
				t.Errorf("codes %q types %q, want %q %q", pe.codes, pe.types, tc.codes, tc.types)
			}
		})
	}
	for _, body := range []string{``, `  `, `{"error":null,"choices":[]}`, `{"choices":[{"delta":{"content":"hi"}}]}`, `42`} {
		if pe, found := parseProviderError([]byte(body)); found {
			t.Errorf("%q: found %+v, want nothing", body, pe)
		}
	}
}

func TestParseRawResponse(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		status    int
		header    map[string]string
		body      string
	}{
		{"headers and body", "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 20\r\nx-ratelimit-remaining-requests: 0\r\n\r\n{\"error\":{\"message\":\"slow down\"}}\n",
			429, map[string]string{"Retry-After": "20", "X-Ratelimit-Remaining-Requests": "0"}, "{\"error\":{\"message\":\"slow down\"}}\n"},
		{"http/2 without a reason, pasted after blank lines", "\n\nHTTP/2 503\ncontent-type: text/plain\n\nupstream connect error",
			503, map[string]string{"Content-Type": "text/plain"}, "upstream connect error"},
		{"body right after the headers", "HTTP/1.1 400 Bad Request\ncontent-type: application/json\n{\"error\":\"bad\"}",
			400, map[string]string{"Content-Type": "application/json"}, `{"error":"bad"}`},
		{"no body", "HTTP/1.1 502 Bad Gateway\n", 502, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseRaw([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if f.Phase != Status || f.Status != tc.status || string(f.Body) != tc.body {
				t.Errorf("phase %d status %d body %q; want Status %d %q", f.Phase, f.Status, f.Body, tc.status, tc.body)
			}
			for k, v := range tc.header {
				if f.Header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, f.Header.Get(k), v)
				}
			}
		})
	}
}

func TestParseRawStream(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		phase     Phase
		kind      NetKind
		frame     string
	}{
		{"error frame first", "data: {\"error\":{\"message\":\"busy\",\"code\":503}}\n\ndata: [DONE]\n", InStreamBeforeDelta, NetUnknown,
			`{"error":{"message":"busy","code":503}}`},
		{"anthropic error event after text", "data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Hi\"}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n",
			InStreamAfterDelta, NetUnknown, `{"type":"error","error":{"type":"overloaded_error"}}`},
		{"thinking is output", "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm\"}}]}\n\ndata: {\"error\":{\"message\":\"x\"}}\n",
			InStreamAfterDelta, NetUnknown, `{"error":{"message":"x"}}`},
		{"llama.cpp error field after a 200", "HTTP/1.1 200 OK\ncontent-type: text/event-stream\n\nerror: {\"code\":400,\"message\":\"exceeds the available context size\"}\n",
			InStreamBeforeDelta, NetUnknown, `{"code":400,"message":"exceeds the available context size"}`},
		{"cut after text", "data: {\"choices\":[{\"delta\":{\"content\":\"Half\"}}]}\n\n<connection closed: EOF>\n", InStreamAfterDelta, NetCut, ""},
		{"only keep-alives", ": keep-alive\n\n: keep-alive\n", InStreamBeforeDelta, NetTimeoutFirstDelta, ""},
		{"finished empty", "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n",
			InStreamBeforeDelta, NetEmpty, ""},
		{"bare JSON lines", "{\"type\":\"response.created\"}\n{\"type\":\"error\",\"code\":\"server_error\",\"message\":\"m\"}\n", InStreamBeforeDelta, NetUnknown,
			`{"type":"error","code":"server_error","message":"m"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseRaw([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if f.Phase != tc.phase || f.Kind != tc.kind || string(f.Body) != tc.frame || f.Status != 200 {
				t.Errorf("phase %d kind %d status %d frame %q; want phase %d kind %d frame %q", f.Phase, f.Kind, f.Status, f.Body, tc.phase, tc.kind, tc.frame)
			}
		})
	}
}

func TestParseRawRefuses(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"prose", "the model said no", "paste the response from its status line"},
		{"a JSON body without its status line", "[{\"error\":{\"code\":429}}]", "paste the response from its status line"},
		{"status line without a status", "HTTP/1.1 Too Many Requests\n\n{}", "write it like HTTP/1.1 429"},
		{"header without a colon", "HTTP/1.1 429 Too Many Requests\nRetry-After 20\n\n{}", `"Retry-After 20" is not "Name: value"`},
		{"a stream that finished", "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n", "nothing failed"},
	} {
		_, err := ParseRaw([]byte(tc.raw))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tc.name, err, tc.want)
		}
	}
}
