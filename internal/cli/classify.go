package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"parley/internal/chat"
	"parley/internal/config"
	"parley/internal/sanitize"
	"parley/retry"
)

// classifyFailure is `parley classify [FILE] [--json]`: it reads a raw failure — an HTTP
// response as text, or an excerpt of an event stream — from FILE or stdin, and prints how
// parley classifies it, with the operator's [[classify]] rules first, and which rule decided.
func classifyFailure(ctx context.Context, args []string, ios *IO) (int, error) {
	pos, jsonOut, err := parseJSONFlag("classify", args)
	if err != nil || len(pos) > 1 {
		return chat.ExitUsage, usagef("usage: parley classify [FILE] [--json]  (the raw response or stream text; stdin without FILE)")
	}
	in := ios.In
	if len(pos) == 1 {
		f, err := os.Open(pos[0])
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // without the path again
			}
			return chat.ExitUsage, usagef("cannot read %s: %v", sanitize.Name(pos[0]), err)
		}
		defer f.Close()
		in = f
	}
	raw, err := readAll(ctx, io.LimitReader(in, 1<<20))
	if err != nil {
		return chat.ExitUsage, usagef("reading the failure: %v", err)
	}
	cfg, err := config.Resolve(config.Flags{}, ios.Getenv)
	if err != nil {
		return chat.ExitUsage, err
	}
	f, err := retry.ParseRaw(raw)
	if err != nil {
		return chat.ExitUsage, usagef("%v", err)
	}
	now := ios.Clock.Now()
	f.Now = now
	c := retry.Classifier{Rules: cfg.Rules}.Classify(f)
	if jsonOut {
		return chat.ExitOK, chat.WriteJSON(ios.Out, c)
	}
	fmt.Fprintf(ios.Out, "%s — %s (%s)\n", c.Class, c.Label, map[bool]string{true: "retryable", false: "not retryable"}[c.Retryable])
	if c.Message != "" {
		fmt.Fprintf(ios.Out, "message: %s\n", c.Message)
	}
	if !c.RetryAfterUntil.IsZero() {
		fmt.Fprintf(ios.Out, "wait:    until %s (%s from now)\n", chat.FormatClockSeconds(c.RetryAfterUntil, now),
			c.RetryAfterUntil.Sub(now).Round(time.Second))
	}
	fmt.Fprintf(ios.Out, "rule:    %s\n", c.Rule)
	return chat.ExitOK, nil
}
