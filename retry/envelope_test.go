package retry

import (
	"slices"
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
