package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"parley/internal/chat"
	"parley/internal/config"
	"parley/retry"
)

// classifyFailure is `parley classify [FILE] [--json]`: it reads a raw failure — an HTTP
// response as text, or an excerpt of an event stream — from FILE or stdin, and prints how
// parley classifies it, with the operator's [[classify]] rules first, and which rule decided.
func classifyFailure(args []string, proc process) (int, error) {
	pos, jsonOut, err := parseJSONFlag("classify", args)
	if err != nil || len(pos) > 1 {
		return exitUsage, usagef("usage: parley classify [FILE] [--json]  (the raw response or stream text; stdin without FILE)")
	}
	in := proc.stdin
	if len(pos) == 1 {
		f, err := os.Open(pos[0])
		if err != nil {
			return exitUsage, usagef("cannot read %s: %v", pos[0], err)
		}
		defer f.Close()
		in = f
	}
	raw, err := io.ReadAll(io.LimitReader(in, 1<<20))
	if err != nil {
		return exitUsage, usagef("reading the failure: %v", err)
	}
	cfg, err := config.Resolve(config.Flags{}, proc.getenv)
	if err != nil {
		return exitUsage, err
	}
	f, err := retry.ParseRaw(raw)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	now := time.Now()
	f.Now = now
	c := retry.Classifier{Rules: cfg.Rules}.Classify(f)
	if jsonOut {
		return exitOK, writeJSON(proc.stdout, c)
	}
	fmt.Fprintf(proc.stdout, "%s — %s (%s)\n", c.Class, c.Label, map[bool]string{true: "retryable", false: "not retryable"}[c.Retryable])
	if c.Message != "" {
		fmt.Fprintf(proc.stdout, "message: %s\n", c.Message)
	}
	if !c.RetryAfterUntil.IsZero() {
		fmt.Fprintf(proc.stdout, "wait:    until %s (%s from now)\n", chat.FormatClockSeconds(c.RetryAfterUntil, now),
			c.RetryAfterUntil.Sub(now).Round(time.Second))
	}
	fmt.Fprintf(proc.stdout, "rule:    %s\n", c.Rule)
	return exitOK, nil
}
