package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"parley/retry"
)

// Network is how this machine reaches endpoints, as its environment says: the proxy a request
// goes through (HTTPS_PROXY for https, HTTP_PROXY for http, else ALL_PROXY as curl reads it;
// NO_PROXY the hosts reached directly; each upper case first, then lower), the certificates it
// trusts beside the system's (SSL_CERT_FILE, SSL_CERT_DIR, which Go's TLS reads), and the
// resolver host names are looked up with. Whoever may read the environment builds it
// (NetworkFrom); the zero Network sends directly with the system's resolver. A failure's fix
// names the variable that set what failed.
type Network struct {
	// vars are the variables above that are set, by the name they are set under.
	vars map[string]string
	// resolver looks host names up; nil is the system's.
	resolver *net.Resolver
}

// networkVars are the variables a Network reads, in the order a name is looked for.
var networkVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
	"NO_PROXY", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR"}

// NetworkFrom reads a Network from getenv, with resolver (nil: the system's) looking host
// names up.
func NetworkFrom(getenv func(string) string, resolver *net.Resolver) Network {
	n := Network{vars: map[string]string{}, resolver: resolver}
	for _, name := range networkVars {
		if v := getenv(name); v != "" {
			n.vars[name] = v
		}
	}
	return n
}

// lookup returns the first of names that is set, and its value.
func (n Network) lookup(names ...string) (name, value string) {
	for _, name := range names {
		if v := n.vars[name]; v != "" {
			return name, v
		}
	}
	return "", ""
}

// proxyFor returns the proxy a request to u goes through, and the variable that named it; nil
// when it goes directly (nothing set, NO_PROXY, or a host on this machine, which is never
// proxied).
func (n Network) proxyFor(u *url.URL) (proxy *url.URL, variable string, err error) {
	names := []string{"HTTP_PROXY", "http_proxy"}
	if u.Scheme == "https" {
		names = []string{"HTTPS_PROXY", "https_proxy"}
	}
	variable, value := n.lookup(names...)
	if value == "" {
		variable, value = n.lookup("ALL_PROXY", "all_proxy")
	}
	if value == "" {
		return nil, "", nil
	}
	_, noProxy := n.lookup("NO_PROXY", "no_proxy")
	proxy, err = (&httpproxy.Config{HTTPProxy: value, HTTPSProxy: value, NoProxy: noProxy}).ProxyFunc()(u)
	if err != nil {
		return nil, variable, fmt.Errorf("%s: %w", variable, err)
	}
	if proxy == nil {
		return nil, "", nil
	}
	return proxy, variable, nil
}

// proxy is the transport's Proxy: proxyFor, for a request.
func (n Network) proxy(r *http.Request) (*url.URL, error) {
	p, _, err := n.proxyFor(r.URL)
	return p, err
}

// certTrouble says what is wrong with the certificate file or directory SSL_CERT_FILE and
// SSL_CERT_DIR name, "" when both are unset or readable. Go's TLS passes over a file that is
// missing or cannot be read in silence, and trusts the system's authorities alone.
func (n Network) certTrouble() string {
	if path := n.vars["SSL_CERT_FILE"]; path != "" {
		if _, err := os.ReadFile(path); err != nil {
			return "SSL_CERT_FILE names " + path + ", which " + unreadable(err)
		}
	}
	for _, dir := range strings.Split(n.vars["SSL_CERT_DIR"], ":") {
		if dir == "" {
			continue
		}
		if _, err := os.ReadDir(dir); err != nil {
			return "SSL_CERT_DIR names " + dir + ", which " + unreadable(err)
		}
	}
	return ""
}

// unreadable words why a file named by a variable could not be read.
func unreadable(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "parley may not read (permission denied)"
	case errors.As(err, &pe):
		return "cannot be read (" + pe.Err.Error() + ")"
	}
	return "cannot be read (" + err.Error() + ")"
}

// refusedConnect is the transport's OnProxyConnectResponse: a proxy's refusal of the tunnel
// to the endpoint is a retry.ProxyAnswer, where net/http would say only its status text.
func refusedConnect(_ context.Context, proxy *url.URL, req *http.Request, resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	return &retry.ProxyAnswer{Status: resp.StatusCode, Text: resp.Status, Target: req.Host}
}
