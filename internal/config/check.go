package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"parley/internal/chat"
)

// The checks below catch, when parley starts, what would otherwise fail only when the first
// message is sent, as an error that looks like the network's.

// envName is what a shell takes as a variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckEnvName refuses value as the name of an environment variable (setting says where it was
// given) unless a shell could export it; an empty value names none and passes.
func CheckEnvName(setting, value string) error {
	if value == "" || envName.MatchString(value) {
		return nil
	}
	return fmt.Errorf("%s is %q; name an environment variable, like OPENAI_API_KEY (the key itself never goes in the config)", setting, value)
}

// CheckHeaders refuses a header name that is not an HTTP token, or a value with a line break
// or another control character: HTTP would refuse to send them.
func CheckHeaders(h map[string]string) error {
	for name, value := range h {
		if name == "" || strings.ContainsFunc(name, func(r rune) bool { return !isTokenChar(r) }) {
			return fmt.Errorf("header name %q is not one HTTP can send (letters, digits and -, no spaces or colons)", name)
		}
		if strings.ContainsFunc(value, isControl) {
			return fmt.Errorf("header %s has a line break or control character in its value; write it on one line", name)
		}
	}
	return nil
}

// checkKey refuses a key (from the variable env) with a line break or another control
// character: HTTP cannot send it, and every request would fail as if the network had. The key
// itself is never said.
func checkKey(env, key string) error {
	if strings.ContainsFunc(key, isControl) {
		return fmt.Errorf("%s holds a line break or another control character, which no HTTP header can carry: set it to the key alone", env)
	}
	return nil
}

// isControl reports whether r is a control character HTTP refuses in a header value.
func isControl(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }

// isTokenChar reports whether r may be in an HTTP header name (RFC 9110 token).
func isTokenChar(r rune) bool {
	return r < 0x7f && r > ' ' && !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
}

// checkBaseURL refuses a base URL that would build broken request URLs: not http(s), no host,
// a port out of range, a query or fragment (the paths parley adds go after them), or spaces.
// from says where the URL was given, for the fix.
func checkBaseURL(raw, from string) (*url.URL, error) {
	want := "want http(s)://host[:port]/v1 (" + from + ")"
	if raw != strings.TrimSpace(raw) || strings.ContainsAny(raw, " \t\r\n") {
		return nil, fmt.Errorf("invalid base URL %q: it has spaces in it; %s", chat.RedactURL(raw), want)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid base URL %q: %s", chat.RedactURL(raw), want)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("invalid base URL %q: port %s is not from 1 to 65535; %s", chat.RedactURL(raw), p, want)
		}
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, fmt.Errorf("invalid base URL %q: a query or fragment would end up before the path parley adds; "+
			"remove it (a key goes in api_key_env, other values in headers); %s", chat.RedactURL(raw), want)
	}
	return u, nil
}
