package retry

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A provider that states when a limit frees says it in many ways besides its headers. These are
// the ways read from the message text and from the fields of a JSON body.
var (
	// waitHint finds "try again in 18.642s", "retry after 37 seconds", "retry in 45.5s",
	// "try again in 6m0s", "resets in 2 hours" and the like.
	waitHint = regexp.MustCompile(`(?i)\b(?:try again|retry|` + freesWords + `)\s+(?:in|after)\s+` +
		`(?:((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)\b|(\d+(?:\.\d+)?)\s*(milliseconds?|seconds?|secs?|minutes?|mins?|hours?)\b)`)
	// dateHint finds a date and time after words that say when something frees: "will reset
	// at 2026-04-09 15:13:03", "regain access on 2026-04-01 at 00:00 UTC", "available again
	// after 2026-03-02T00:00Z", "until 2026-03-01 14:50 +0800".
	dateHint = regexp.MustCompile(`(?i)\b(?:` + freesWords + `|regain access|until|after|again|available)\s+(?:at\s+|on\s+|by\s+)?` +
		`(\d{4}-\d{2}-\d{2})(?:[ T]|\s+at\s+)(\d{1,2}:\d{2}(?::\d{2})?)(?:\.\d+)?` + zoneSuffix)
	// clockHint finds a time of day without a date after the same words: "will reset at 3pm
	// (UTC)", "resets 15:00", "try again at 3:30 PM PST". A bare hour without minutes or
	// am/pm is not a time (see clockTime).
	clockHint = regexp.MustCompile(`(?i)\b(?:` + freesWords + `|reset time is|regain access|until|again|available)\s+(?:at\s+|by\s+)?` +
		`(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([ap])\.?m\.?)?\b` + zoneSuffix)
	// epochHint finds a Unix time, in seconds or milliseconds, after a "|" separator: a gateway
	// writing "rate limit exceeded|1735603200".
	epochHint = regexp.MustCompile(`\|\s*(\d{10}|\d{13})\b`)
)

// freesWords are the verbs a provider says a limit frees with: "resets", "renews",
// "refreshes", "replenishes", "restores", "reopens".
const freesWords = `(?:resets?|renews?|refresh(?:es)?|replenish(?:es)?|restores?|reopens?)`

// zoneSuffix matches an optional zone after a time, bracketed or not: "Z", "UTC", "GMT",
// "+08:00", "-0500", or an abbreviation such as "PST".
const zoneSuffix = `(?:\s*\(?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2}|[A-Za-z]{2,5})\s*\)?)?`

// zoneAbbreviations are the zone names providers write after a time, with their offsets from
// UTC in minutes. An abbreviation not listed is not taken as a zone (the time is UTC's).
var zoneAbbreviations = map[string]int{
	"UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "BST": 60, "CET": 60, "CEST": 120, "EET": 120, "EEST": 180, "MSK": 180,
	"IST": 330, "SGT": 480, "HKT": 480, "JST": 540, "KST": 540, "AEST": 600, "AEDT": 660,
	"EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
}

// zone reads a zoneSuffix capture: the location it names, and false when it names none parley
// knows. An empty zone is UTC: the provider's own zone is unknown, and a reset read a few hours
// early is only a retry that fails again.
func zone(z string) (*time.Location, bool) {
	z = strings.ToUpper(strings.TrimSpace(z))
	if z == "" {
		return time.UTC, true
	}
	if z[0] == '+' || z[0] == '-' {
		digits := strings.ReplaceAll(z[1:], ":", "")
		h, err1 := strconv.Atoi(digits[:2])
		m, err2 := strconv.Atoi(digits[2:])
		if err1 != nil || err2 != nil || h > 14 || m > 59 {
			return nil, false
		}
		off := (h*60 + m) * 60
		if z[0] == '-' {
			off = -off
		}
		return time.FixedZone(z, off), true
	}
	if off, ok := zoneAbbreviations[z]; ok {
		return time.FixedZone(z, off*60), true
	}
	return nil, false
}

// textAdvice passes every time the message text states to consider: waits counted from now,
// dates, times of day still ahead today, and Unix times. A time of day already past today is
// returned as tomorrow's, for the caller to weigh against the rest.
func textAdvice(text string, now time.Time, consider func(time.Time)) (tomorrow []time.Time) {
	for _, m := range waitHint.FindAllStringSubmatch(text, -1) {
		if d, ok := hintDuration(m[1], m[2], m[3]); ok {
			consider(later(now, d))
		}
	}
	for _, m := range dateHint.FindAllStringSubmatch(text, -1) {
		if t, ok := dateTime(m[1], m[2], m[3]); ok {
			consider(t)
		}
	}
	for _, m := range clockHint.FindAllStringSubmatch(text, -1) {
		if t, ok := clockTime(m[1], m[2], m[3], m[4], m[5], now); ok {
			if t.After(now) {
				consider(t)
			} else {
				tomorrow = append(tomorrow, t.AddDate(0, 0, 1))
			}
		}
	}
	for _, m := range epochHint.FindAllStringSubmatch(text, -1) {
		if t, ok := resetTime(m[1], now); ok {
			consider(t)
		}
	}
	return tomorrow
}

// hintDuration converts a waitHint match: either a Go duration, or a number and a unit word.
func hintDuration(goDur, num, unit string) (time.Duration, bool) {
	if goDur != "" {
		return parseWait(goDur)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	per := time.Second
	switch u := strings.ToLower(unit); {
	case strings.HasPrefix(u, "milli"):
		per = time.Millisecond
	case strings.HasPrefix(u, "min"):
		per = time.Minute
	case strings.HasPrefix(u, "hour"):
		per = time.Hour
	}
	return units(n, per)
}

// dateTime converts a dateHint match.
func dateTime(date, clock, z string) (time.Time, bool) {
	loc, ok := zone(z)
	if !ok {
		loc = time.UTC
	}
	if len(clock) < len("15:04:05") {
		clock += ":00"
	}
	t, err := time.ParseInLocation("2006-01-02 15:04:05", date+" "+clock, loc)
	return t, err == nil
}

// clockTime converts a clockHint match to the time the clock shows it today (now's day in the
// zone given), which may be past. It refuses a bare hour ("resets at 3"), which may be a count,
// not a time.
func clockTime(hour, minute, second, ampm, z string, now time.Time) (time.Time, bool) {
	if minute == "" && ampm == "" {
		return time.Time{}, false
	}
	h, _ := strconv.Atoi(hour)
	m, _ := strconv.Atoi(minute)
	s, _ := strconv.Atoi(second)
	switch strings.ToLower(ampm) {
	case "a":
		if h < 1 || h > 12 {
			return time.Time{}, false
		}
		h %= 12
	case "p":
		if h < 1 || h > 12 {
			return time.Time{}, false
		}
		h = h%12 + 12
	}
	if h > 23 || m > 59 || s > 59 {
		return time.Time{}, false
	}
	loc, ok := zone(z)
	if !ok {
		loc = time.UTC
	}
	local := now.In(loc)
	return time.Date(local.Year(), local.Month(), local.Day(), h, m, s, 0, loc), true
}

// bodyResets returns the times the fields of a JSON body state for a reset: a field whose name
// says reset ("reset_at", "resetsAt", "next_reset") holding an absolute time (RFC 3339, a Unix
// time or a Go duration), and one whose name says retry after ("retry_after",
// "retryAfterMs") holding seconds or milliseconds to wait. Copied header sets are read apart
// (copiedHeaders).
func bodyResets(body []byte, now time.Time) []time.Time {
	var out []time.Time
	eachField(body, func(k string, v any) bool {
		if strings.EqualFold(k, "headers") {
			return true
		}
		if t, ok := fieldReset(k, v, now); ok {
			out = append(out, t)
		}
		return false
	})
	return out
}

// fieldReset reads one body field as bodyResets does.
func fieldReset(key string, v any, now time.Time) (time.Time, bool) {
	name := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(key))
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case json.Number:
		text = x.String()
	default:
		return time.Time{}, false
	}
	switch {
	case strings.HasPrefix(name, "retryafter"):
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || n < 0 {
			return time.Time{}, false
		}
		unit := time.Second
		if strings.HasSuffix(name, "ms") {
			unit = time.Millisecond
		}
		d, ok := units(n, unit)
		return later(now, d), ok
	case strings.Contains(name, "reset"):
		// A small number might be seconds to wait or a count: only an absolute time is read.
		if n, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil && n < epochSeconds {
			return time.Time{}, false
		}
		return resetTime(text, now)
	}
	return time.Time{}, false
}
