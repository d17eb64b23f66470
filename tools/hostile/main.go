// Command hostile serves chatseq's HTTP API (docs/http-api.md) broken in
// one way, to see what bench --target http makes of it: chats are
// created, the counter hook is absent, and every send (with -syncs, every
// sync too) is answered as -mode says:
//
//	go run ./tools/hostile -mode endless &
//	/usr/bin/time -f '%M KB' chatseq bench --target http --url http://127.0.0.1:18480 --duration 5s
//
// Modes: not-json, negative, zero, overflow (201 with such a sequence),
// redirect (302), huge (201 announcing 2 GiB, then sending them), chunked
// (2 GiB without a length), endless (201 that never ends).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	fl := flag.NewFlagSet("hostile", flag.ContinueOnError)
	addr := fl.String("addr", "127.0.0.1:18480", "where to listen")
	mode := fl.String("mode", "not-json", "how every send is answered: "+strings.Join(modeNames(), ", "))
	syncs := fl.Bool("syncs", false, "answer syncs so too (by default: an empty page)")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	h, err := handler(*mode, *syncs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	fmt.Println("hostile: serving", *mode, "on", *addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

const twoGiB = 2 << 30

var modes = map[string]http.HandlerFunc{
	"not-json": created(`{"sequence": 1,`),
	"negative": created(`{"sequence":-3,"message_id":"m"}`),
	"zero":     created(`{"sequence":0,"message_id":"m"}`),
	"overflow": created(`{"sequence":18446744073709551616,"message_id":"m"}`),
	"redirect": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) },
	"huge": func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(twoGiB))
		w.WriteHeader(http.StatusCreated)
		stream(w, twoGiB)
	},
	"chunked": func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		stream(w, twoGiB)
	},
	"endless": func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		stream(w, -1)
	},
}

// modeNames are the modes in the order the help lists them.
func modeNames() []string {
	return []string{"not-json", "negative", "zero", "overflow", "redirect", "huge", "chunked", "endless"}
}

func handler(mode string, syncs bool) (http.Handler, error) {
	send := modes[mode]
	if send == nil {
		return nil, fmt.Errorf("-mode %q is none of %s", mode, strings.Join(modeNames(), ", "))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch {
		case strings.HasSuffix(r.URL.Path, "/counter"):
			http.NotFound(w, r)
		case r.Method == http.MethodPut:
			created(`{}`)(w, r)
		case r.Method == http.MethodGet && !syncs:
			_, _ = io.WriteString(w, `{"messages":[]}`)
		default:
			send(w, r)
		}
	}), nil
}

func created(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, body)
	}
}

// stream writes n bytes (n < 0: for ever) until the client goes away.
func stream(w http.ResponseWriter, n int64) {
	chunk := []byte(strings.Repeat("x", 1<<20))
	for sent := int64(0); n < 0 || sent < n; {
		part := chunk
		if n >= 0 {
			part = chunk[:min(int64(len(chunk)), n-sent)]
		}
		if _, err := w.Write(part); err != nil {
			return
		}
		sent += int64(len(part))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}
