package httptarget

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
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
