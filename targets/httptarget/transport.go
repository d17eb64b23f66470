package httptarget

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/chatseq/chatseq/targets"
)

// settings are how a run's requests reach the service: its headers (a
// token, an API key), TLS, the per-request timeout and the bound on a
// sync page's answer (targets.HTTPOptions).
type settings struct {
	header  http.Header // added to every request; values never shown
	host    string      // a --header 'Host: …': the request's Host
	tls     *tls.Config // nil: Go's defaults
	timeout time.Duration
	maxPage int64
}

// newSettings reads o: the CA and client certificate files now, so a
// bad one stops the run before anything is sent, named by its flag and
// file (never its content).
func newSettings(o targets.HTTPOptions) (settings, error) {
	s := settings{timeout: o.Timeout, maxPage: o.MaxAnswerBytes}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.maxPage <= 0 {
		s.maxPage = DefaultMaxPageBytes
	}
	if len(o.Header) > 0 {
		s.header = o.Header.Clone()
		s.host = s.header.Get("Host")
		s.header.Del("Host")
	}
	if !o.Insecure && o.CACert == "" && o.ClientCert == "" && o.ClientKey == "" {
		return s, nil
	}
	s.tls = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.Insecure} // #nosec G402 -- --insecure asks for it
	if o.CACert != "" {
		pem, err := os.ReadFile(o.CACert)
		if err != nil {
			return settings{}, fmt.Errorf("--ca-cert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return settings{}, fmt.Errorf("--ca-cert %s: no PEM certificate in it", o.CACert)
		}
		s.tls.RootCAs = pool
	}
	if (o.ClientCert == "") != (o.ClientKey == "") {
		return settings{}, fmt.Errorf("--client-cert and --client-key go together: give both or neither")
	}
	if o.ClientCert != "" {
		pair, err := tls.LoadX509KeyPair(o.ClientCert, o.ClientKey)
		if err != nil {
			return settings{}, fmt.Errorf("--client-cert %s with --client-key %s: %w", o.ClientCert, o.ClientKey, err)
		}
		s.tls.Certificates = []tls.Certificate{pair}
	}
	return s, nil
}

// CheckOptions reads o as a run would, so that a bad certificate file
// stops bench before anything runs.
func CheckOptions(o targets.HTTPOptions) error {
	_, err := newSettings(o)
	return err
}

// defaultSettings are a run's without flags.
func defaultSettings() settings {
	return settings{timeout: DefaultTimeout, maxPage: DefaultMaxPageBytes}
}

// applyHeader sets the run's headers on a request, before its own (the
// idempotency key, the content type), which they cannot replace.
func (s *settings) applyHeader(req *http.Request) {
	for k, vs := range s.header {
		req.Header[k] = vs
	}
	if s.host != "" {
		req.Host = s.host
	}
}
