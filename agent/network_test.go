package agent

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/agent/agenttest"
)

// proxyAnswering starts a proxy on 127.0.0.1 that answers every CONNECT with status, and
// returns its address.
func proxyAnswering(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			t.Errorf("the proxy was sent %s %s, not CONNECT", r.Method, r.URL)
		}
		if status == http.StatusProxyAuthRequired {
			w.Header().Set("Proxy-Authenticate", `Basic realm="office"`)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// env is a getenv of the variables set in vars (NAME=VALUE).
func env(vars ...string) func(string) string {
	m := map[string]string{}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// Each network failure's fix names its cause: the certificate's date, the hosts it is for, the
// authority and the certificate file named that cannot be read, the proxy and the variable
// that named it, a name DNS does not know apart from DNS failing. Only the causes a wait may
// cure are retried.
func TestNetworkFailuresNameTheirCause(t *testing.T) {
	t.Parallel()
	ca := agenttest.NewSigner(t)
	lo := net.ParseIP("127.0.0.1")
	expired := ca.Serve(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), nil, lo)
	otherHost := ca.Serve(t, time.Now().Add(time.Hour), []string{"api.example.com", "*.example.org"})
	untrusted := ca.Serve(t, time.Now().Add(time.Hour), nil, lo)
	host := func(u string) string { return strings.TrimPrefix(u, "https://") }
	otherHostPort := strings.Replace(host(otherHost), "127.0.0.1", "localhost", 1)
	missing := filepath.Join(t.TempDir(), "corp-ca.pem")
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now
	asks, denies := proxyAnswering(t, http.StatusProxyAuthRequired), proxyAnswering(t, http.StatusForbidden)
	noSuchName, dnsDown := agenttest.DNS(t, 3), agenttest.DNS(t, 2)
	const remote = "https://api.example.com/v1"

	for _, c := range []struct {
		name      string
		base      string
		net       Network
		requests  int
		retryable bool
		want      string
	}{
		{"an expired certificate", expired + "/v1", Network{}, 1, false,
			"the certificate of " + host(expired) + " expired on 2026-11-30 (today is " + time.Now().UTC().Format(time.DateOnly) +
				" here): the server's operator must renew it, unless this machine's clock is wrong"},
		{"a certificate for other hosts", "https://" + otherHostPort + "/v1", Network{}, 1, false,
			"the certificate of " + otherHostPort + " is for api.example.com, *.example.org, not localhost: use one of those in the base URL"},
		{"an authority not trusted", untrusted + "/v1", Network{}, 1, false,
			"the certificate of " + host(untrusted) + ` is signed by "parley test CA", an authority this machine does not trust: ` +
				"if a private CA or a proxy signs it, point SSL_CERT_FILE (or SSL_CERT_DIR) at that authority's certificate"},
		{"SSL_CERT_FILE names a missing file", untrusted + "/v1", NetworkFrom(env("SSL_CERT_FILE="+missing), nil), 1, false,
			"the certificate of " + host(untrusted) + ` is signed by "parley test CA", an authority this machine does not trust: ` +
				"SSL_CERT_FILE names " + missing + ", which does not exist; point it at that authority's certificate"},
		{"SSL_CERT_FILE names what cannot be read", untrusted + "/v1", NetworkFrom(env("SSL_CERT_FILE="+dir), nil), 1, false,
			"the certificate of " + host(untrusted) + ` is signed by "parley test CA", an authority this machine does not trust: ` +
				"SSL_CERT_FILE names " + dir + ", which cannot be read (is a directory); point it at that authority's certificate"},
		{"a proxy that refuses", remote, NetworkFrom(env("HTTPS_PROXY=http://"+closed), nil), 3, false,
			"the proxy at http://" + closed + " (HTTPS_PROXY) refused the connection: start the proxy or correct HTTPS_PROXY, " +
				"or NO_PROXY=api.example.com connects to this host directly"},
		{"ALL_PROXY, in lower case", remote, NetworkFrom(env("all_proxy=http://"+closed), nil), 3, false,
			"the proxy at http://" + closed + " (all_proxy) refused the connection: start the proxy or correct all_proxy, " +
				"or NO_PROXY=api.example.com connects to this host directly"},
		{"a proxy that asks for a password", remote, NetworkFrom(env("https_proxy=http://"+asks), nil), 1, false,
			"the proxy at http://" + asks + " (https_proxy) asks for a password (407 Proxy Authentication Required): " +
				"put it in https_proxy as http://USER:PASSWORD@" + asks},
		{"a proxy that refuses its password", remote, NetworkFrom(env("HTTPS_PROXY=http://ann:hunter2@"+asks), nil), 1, false,
			"the proxy at http://[redacted]@" + asks + " (HTTPS_PROXY) refused its user and password (407 Proxy Authentication Required): " +
				"correct them in HTTPS_PROXY"},
		{"a proxy that forbids the host", remote, NetworkFrom(env("HTTPS_PROXY=http://"+denies), nil), 1, false,
			"the proxy at http://" + denies + " (HTTPS_PROXY) does not let this machine reach api.example.com:443 (403 Forbidden): " +
				"ask its administrator, or NO_PROXY=api.example.com connects to this host directly"},
		{"a proxy that does not exist", remote, NetworkFrom(env("HTTPS_PROXY=http://proxy.corp.example:3128"), noSuchName), 1, false,
			"the proxy at http://proxy.corp.example:3128 (HTTPS_PROXY): there is no host proxy.corp.example (DNS knows none): " +
				"correct HTTPS_PROXY, or unset it to connect directly"},
		{"NO_PROXY passes the proxy by", "http://" + closed + "/v1", NetworkFrom(env("HTTP_PROXY=http://"+asks, "NO_PROXY=127.0.0.1"), nil), 3, false,
			"nothing is listening on " + closed + " (connection refused): is the server running? Start it, then try again"},
		{"a host that does not exist", "https://api.opneai.com/v1", NetworkFrom(env(), noSuchName), 1, false,
			"there is no host api.opneai.com (DNS knows none): check the host name in the base URL (https://api.opneai.com/v1)"},
		{"DNS itself failing", remote, NetworkFrom(env(), dnsDown), 3, true,
			"DNS failed looking up api.example.com (server misbehaving): check this machine's network and its DNS resolver; the host name may be right"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cls, n := lastFailure(t, Endpoint{BaseURL: c.base, Model: "m", APIKey: "sk-never-shown", Network: c.net})
			if cls.Message != c.want || cls.Retryable != c.retryable || n != c.requests {
				t.Fatalf("message %q, retryable %v after %d requests (rule %s);\nwant %q, %v after %d", cls.Message, cls.Retryable, n,
					cls.Rule, c.want, c.retryable, c.requests)
			}
			for _, secret := range []string{"sk-never-shown", "hunter2"} {
				if strings.Contains(cls.Message, secret) {
					t.Fatalf("%s is in the message", secret)
				}
			}
		})
	}
}
