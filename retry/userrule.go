package retry

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"parley/internal/chat"
)

// UserRule is the operator's own reading of an error the built-in rules get wrong: what to
// match in a provider's answer, and what it means. Build one with NewUserRule, which checks it.
// Every field set to match must match; a rule reads only failures with a provider's answer (an
// error status or an error frame), never a network error.
type UserRule struct {
	// Name identifies the rule in a classification ("user:NAME"). A rule without one is named by
	// its position in Classifier.Rules, counting from 1.
	Name string
	// Status, when not 0, must equal the HTTP status the answer stands for (inside a 200
	// stream, the status its error frame states).
	Status int
	// Code and Type, when set, must equal a code (or status word, such as RESOURCE_EXHAUSTED)
	// and a type that the provider's error states at any level of nesting, exactly.
	Code, Type string
	// Message, when set, must match the innermost error message.
	Message *regexp.Regexp
	// Class and Retryable are the classification a match gives.
	Class     chat.Class
	Retryable bool
	// Wait, when positive, is how long after the failure to retry at the earliest: it sets
	// RetryAfterUntil in place of the server's advice.
	Wait time.Duration
}

// settableClasses are the classes a provider's answer can mean; the rest describe what
// happened without one (a cancel, an unset key, a local spend limit, a dead process, a stream
// that ended empty).
var settableClasses = []chat.Class{chat.RateLimited, chat.Overloaded, chat.ServerError, chat.Network, chat.Timeout,
	chat.QuotaExhausted, chat.AuthFailed, chat.SpendLimitExceeded, chat.ContextOverflow, chat.ModelNotFound,
	chat.BadRequest, chat.ContentFilter}

// NewUserRule builds a UserRule from the fields as an operator writes them: message is a
// regular expression (Go syntax; (?i) for any case), class a class name, retryable nil for the
// class's own retryability, and wait a Go duration such as "90s" or "5m" (empty for none). An
// error is one line that names the rule and says how to fix it.
func NewUserRule(name string, status int, code, typ, message, class string, retryable *bool, wait string) (UserRule, error) {
	fail := func(format string, args ...any) (UserRule, error) {
		who := "unnamed classify rule"
		if name != "" {
			who = fmt.Sprintf("classify rule %q", name)
		}
		return UserRule{}, fmt.Errorf("%s: %s", who, fmt.Sprintf(format, args...))
	}
	r := UserRule{Name: name, Status: status, Code: code, Type: typ, Class: chat.Class(class)}
	if status != 0 && (status < 100 || status > 599) {
		return fail("status %d is not an HTTP status; write one from 100 to 599, or leave it out", status)
	}
	if message != "" {
		re, err := regexp.Compile(message)
		if err != nil {
			return fail("message %q is not a regular expression (%v); fix it, or escape special characters with \\", message, err)
		}
		r.Message = re
	}
	if status == 0 && code == "" && typ == "" && message == "" {
		return fail("it would match every error; set status, code, type or message")
	}
	if !slices.Contains(settableClasses, r.Class) {
		return fail("class %q is not one a rule can set; use one of %s", class, classList(settableClasses))
	}
	r.Retryable = r.Class.Retryable()
	if retryable != nil {
		if *retryable && !r.Class.Retryable() {
			return fail("class %s is never retried, so retryable = true contradicts it; drop retryable or use one of %s",
				class, classList(retryableClasses()))
		}
		r.Retryable = *retryable
	}
	if wait != "" {
		d, err := time.ParseDuration(wait)
		if err != nil || d < 0 {
			return fail("wait %q is not a duration; write it like 30s, 5m or 2h", wait)
		}
		r.Wait = d
	}
	return r, nil
}

func retryableClasses() []chat.Class {
	var out []chat.Class
	for _, c := range settableClasses {
		if c.Retryable() {
			out = append(out, c)
		}
	}
	return out
}

func classList(cs []chat.Class) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// matches reports whether every field r sets matches s.
func (r UserRule) matches(s *signals) bool {
	return (r.Status == 0 || r.Status == s.status) &&
		(r.Code == "" || slices.Contains(s.pe.codes, r.Code)) &&
		(r.Type == "" || slices.Contains(s.pe.types, r.Type)) &&
		(r.Message == nil || r.Message.MatchString(s.pe.message))
}

// label is the name r is recorded by, at index i of Classifier.Rules.
func (r UserRule) label(i int) string {
	if r.Name != "" {
		return r.Name
	}
	return strconv.Itoa(i + 1)
}
