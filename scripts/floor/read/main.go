// Command read is the floor for streaming: it reads one chat completion stream with go-openai
// and does nothing with it, so scripts/bench.sh can set parley's cost beside the least any
// go-openai client pays for the same stream.
//
//	go run ./scripts/floor/read --base-url http://127.0.0.1:PORT/v1 [--out reply.md]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

func main() {
	baseURL := flag.String("base-url", "", "endpoint base `URL`")
	model := flag.String("model", "floor", "model `NAME`")
	out := flag.String("out", "", "also write the reply's text to `FILE` (for the render floor)")
	flag.Parse()
	if *baseURL == "" {
		fmt.Fprintln(os.Stderr, "read: --base-url is required")
		os.Exit(2)
	}
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = *baseURL
	// Keep-alive comments are not errors (as in parley's client).
	cfg.EmptyMessagesLimit = math.MaxUint32
	stream, err := openai.NewClientWithConfig(cfg).CreateChatCompletionStream(context.Background(),
		openai.ChatCompletionRequest{
			Model:    *model,
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "floor"}},
			Stream:   true,
		})
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		os.Exit(1)
	}
	defer stream.Close()
	// The text is kept only when asked for, so the measured floor does nothing with it.
	var text *strings.Builder
	if *out != "" {
		text = &strings.Builder{}
	}
	chunks := 0
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			os.Exit(1)
		}
		chunks++
		if text != nil && len(resp.Choices) > 0 {
			text.WriteString(resp.Choices[0].Delta.Content)
		}
	}
	if text != nil {
		if err := os.WriteFile(*out, []byte(text.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "read: %d chunks\n", chunks)
}
