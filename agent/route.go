package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"sort"
	"strings"

	"parley/internal/chat"
)

// routingHeaders are the request headers gateways document as choosing where a request goes
// behind one URL and model: two profiles that differ in one are two routes, each with its own
// remembered waits, pacing and retry budget.
var routingHeaders = []string{
	"x-portkey-provider", "x-portkey-custom-host", "x-portkey-config", "x-portkey-virtual-key", // Portkey
	"x-litellm-tags", // LiteLLM's tag routing
}

// route is one part of a route beyond the base URL, model and key variable: a routing
// header's value (a hash of it when it is a secret), or the profile's route_key.
type route struct{ name, value string }

// routeParts are the parts of ep's route, in a stable order.
func (e Endpoint) routeParts() []route {
	var out []route
	for name, value := range e.Headers {
		lower := strings.ToLower(name)
		for _, h := range routingHeaders {
			if lower != h || strings.TrimSpace(value) == "" {
				continue
			}
			if chat.SecretValue(name, value) {
				sum := sha256.Sum256([]byte(value))
				value = "#" + hex.EncodeToString(sum[:4]) // the same secret, the same route; never its value
			}
			out = append(out, route{strings.TrimPrefix(lower, "x-"), value})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	if e.RouteKey != "" {
		out = append(out, route{"route_key", e.RouteKey})
	}
	return out
}

// Route is what names ep's route beside its base URL, model and key variable: its routing
// headers and route_key, "" when it has none.
func (e Endpoint) Route() string {
	var b strings.Builder
	for i, p := range e.routeParts() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.name + "=" + p.value)
	}
	return b.String()
}

// RouteLabel is the route as a hold names it, short: "api.portkey.ai … custom-host
// 127.0.0.1:9001" (a URL's value by its host); "" when the endpoint has no route beyond its
// URL.
func (e Endpoint) RouteLabel() string {
	parts := e.routeParts()
	if len(parts) == 0 {
		return ""
	}
	host := e.BaseURL
	if u, err := url.Parse(e.BaseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	words := []string{host, "…"}
	for _, p := range parts {
		v := p.value
		if u, err := url.Parse(v); err == nil && u.Host != "" {
			v = u.Host
		}
		if len(v) > 40 {
			v = v[:39] + "…"
		}
		words = append(words, strings.TrimPrefix(p.name, "portkey-"), v)
	}
	return strings.Join(words, " ")
}
