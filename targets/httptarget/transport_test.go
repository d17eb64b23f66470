package httptarget

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/targets"
)

// A service over https with a self-signed certificate is waited for
// (--serve, --nemesis-cmd) over the run's TLS settings: the probe's
// default client never saw it answer, and waited three minutes.
func TestANemesisWaitsForAServiceItTrustsByCACert(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized) // an answer all the same
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := newSettings(targets.HTTPOptions{CACert: ca})
	if err != nil {
		t.Fatal(err)
	}
	// Generous: the probe answers at once when it trusts the service.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := runNemesis(ctx, "true", srv.URL, s.tls); err != nil {
		t.Fatalf("the nemesis did not see the service answer: %v", err)
	}
}

// A service that requires a client certificate (mutual TLS) is reached
// with --client-cert and --client-key, and refuses the run without them.
func TestMutualTLSPresentsTheClientCertificate(t *testing.T) {
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	clientKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	clientDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "chatseq"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}, caCert, &clientKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(clientKey)
	certFile, keyFile := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	mustWrite(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: clientDER}))
	mustWrite(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"messages":[]}`)
	}))
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	for _, c := range []struct {
		name string
		opts targets.HTTPOptions
		ok   bool
	}{
		{"with the client certificate", targets.HTTPOptions{Insecure: true, ClientCert: certFile, ClientKey: keyFile}, true},
		{"without", targets.HTTPOptions{Insecure: true}, false},
	} {
		s, err := newSettings(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		cl := newClient(base, DefaultAPI(), s, 2, nil)
		_, err = cl.Sync(context.Background(), "c", 0, 10)
		cl.Close()
		if (err == nil) != c.ok {
			t.Errorf("%s: sync error %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

func mustWrite(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
