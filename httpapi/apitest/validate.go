// Package apitest checks HTTP traffic against docs/openapi.yaml, for the
// tests of the server and of the http target.
package apitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// SpecPath finds docs/openapi.yaml above the test's directory.
func SpecPath(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "docs", "openapi.yaml")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("docs/openapi.yaml not found above the test's directory")
		}
		dir = parent
	}
}

// Load reads and validates the OpenAPI document and builds its router.
func Load(t testing.TB) (*openapi3.T, routers.Router) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(SpecPath(t))
	if err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("docs/openapi.yaml is not a valid OpenAPI 3 document: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	return doc, router
}

// Transport validates every response it carries (and every request,
// unless the test sends malformed ones on purpose) against the document.
type Transport struct {
	Base   http.RoundTripper
	router routers.Router
	// RequestsMayBeInvalid: the test sends requests the API refuses
	// (no Idempotency-Key), so requests are not validated.
	RequestsMayBeInvalid bool

	mu        sync.Mutex
	problems  []string
	responses int
}

// NewTransport validates traffic over base (nil: http.DefaultTransport).
func NewTransport(t testing.TB, base http.RoundTripper) *Transport {
	_, router := Load(t)
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{Base: base, router: router}
}

func (v *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := v.Base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	// Validate on a copy of the request with its body again.
	check := req.Clone(req.Context())
	check.Body = io.NopCloser(bytes.NewReader(body))
	route, params, ferr := v.router.FindRoute(check)
	if ferr != nil {
		v.problem("%s %s: no such operation in docs/openapi.yaml: %v", req.Method, req.URL.Path, ferr)
		return resp, nil
	}
	in := &openapi3filter.RequestValidationInput{
		Request: check, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	if !v.RequestsMayBeInvalid {
		if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
			v.problem("%s %s: request: %v", req.Method, req.URL.Path, err)
		}
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body:    io.NopCloser(bytes.NewReader(respBody)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(req.Context(), out); err != nil {
		v.problem("%s %s: response %d %s: %v", req.Method, req.URL.Path, resp.StatusCode, respBody, err)
	}
	v.mu.Lock()
	v.responses++
	v.mu.Unlock()
	return resp, nil
}

func (v *Transport) problem(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.problems) < 20 {
		v.problems = append(v.problems, fmt.Sprintf(format, args...))
	}
}

// Check fails t for every mismatch seen, and when nothing was validated.
func (v *Transport) Check(t testing.TB) {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, p := range v.problems {
		t.Error(p)
	}
	if v.responses == 0 {
		t.Error("no response was validated against docs/openapi.yaml")
	}
}

// Responses is how many responses were validated.
func (v *Transport) Responses() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.responses
}
