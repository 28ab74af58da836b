package chat

import (
	"net/url"
	"strings"
)

// Redacted stands where a secret was.
const Redacted = "[redacted]"

// RedactURL is raw with what may be a secret in it replaced by Redacted: a password (and the
// user name beside it) and every query value (?key=…), so that a base URL can be logged,
// stored, printed and exported. Text that does not parse as a URL keeps nothing after an "@"
// that precedes the host.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if at := strings.LastIndexByte(raw, '@'); at >= 0 {
			if scheme := strings.Index(raw, "://"); scheme >= 0 && scheme < at {
				return raw[:scheme+3] + Redacted + raw[at:]
			}
		}
		return raw
	}
	if u.User == nil && u.RawQuery == "" {
		return raw // nothing to hide: as it was written
	}
	if u.User != nil {
		u.User = url.User(Redacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{Redacted}
		}
		u.RawQuery = q.Encode()
	}
	return strings.NewReplacer("%5Bredacted%5D", Redacted, "%5bredacted%5d", Redacted).Replace(u.String())
}

// Redact returns text with every secret in secrets replaced by Redacted: the API key's value
// and the values of configured headers, which a server may echo back in an error. Secrets
// shorter than four characters are left alone: they would match ordinary words.
func Redact(text string, secrets []string) string {
	for _, s := range secrets {
		if len(s) >= 4 && strings.Contains(text, s) {
			text = strings.ReplaceAll(text, s, Redacted)
		}
	}
	return text
}
