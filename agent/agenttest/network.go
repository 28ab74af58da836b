// Package agenttest holds what tests of the endpoint client and of its users share: servers
// whose network fails as real ones do (a certificate's authority of the test's own, a DNS
// server answering what a test chooses).
package agenttest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Signer is a certificate authority of a test's own, which no machine trusts.
type Signer struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// NewSigner makes a Signer valid for the hour around now.
func NewSigner(t testing.TB) Signer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "parley test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return Signer{cert, key}
}

// Serve starts a TLS server on 127.0.0.1 whose certificate the signer made valid until
// notAfter for dnsNames and ips, and returns its URL. A request that reaches it fails t: the
// handshakes are what such a test is about.
func (s Signer) Serve(t testing.TB, notAfter time.Time, dnsNames []string, ips ...net.IP) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "endpoint"},
		NotBefore: notAfter.Add(-30 * 24 * time.Hour), NotAfter: notAfter, DNSNames: dnsNames, IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.cert, &key.PublicKey, s.key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a request reached a server whose certificate fails: %s %s", r.Method, r.URL)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes that fail are the test
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

// DNS starts a DNS server on 127.0.0.1 that answers every question with rcode (2 SERVFAIL, 3
// NXDOMAIN), and returns a resolver that asks it alone.
func DNS(t testing.TB, rcode byte) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			answer := append([]byte{}, buf[:n]...)
			answer[2] = 0x80 | buf[2]&0x01 // a response, recursion desired as asked
			answer[3] = 0x80 | rcode       // recursion available
			pc.WriteTo(answer, from)
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", addr)
	}}
}
