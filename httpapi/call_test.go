package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/httpapi"
)

// apiCaller sends requests to the API at base as user "u": a JSON body,
// and the idempotency key when one is given.
func apiCaller(t *testing.T, client *http.Client, base string) func(method, path, key, body string) *http.Response {
	return func(method, path, key, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(httpapi.HeaderUser, "u")
		if key != "" {
			req.Header.Set(httpapi.HeaderIdempotencyKey, key)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
}

// apiStatus is apiCaller for a caller that reads only the status.
func apiStatus(t *testing.T, client *http.Client, base string) func(method, path, key, body string) int {
	call := apiCaller(t, client, base)
	return func(method, path, key, body string) int {
		t.Helper()
		resp := call(method, path, key, body)
		resp.Body.Close()
		return resp.StatusCode
	}
}
