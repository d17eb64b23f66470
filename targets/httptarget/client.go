// Package httptarget is the http target: any service that speaks
// chatseq's HTTP API (docs/http-api.md), or another API described by a
// mapping (--api FILE), driven from outside. What the client saw decides
// the history; the final messages are read back through the service's
// sync API, and what it does not expose (idempotency records, traces,
// counters unless it has chatseq serve's hook) is absent, so the checker
// reports those invariants n/a.
package httptarget

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/sequencer"
)

// Codes a client records for what it saw without an answer.
const (
	CodeTimeout       = "timeout"
	CodeConnection    = "connection_lost"
	CodeRefused       = "connection_refused"
	CodeBadResponse   = history.ErrorBadResponse
	codeStatusPrefix  = "http_"
	defaultPageLimit  = 1000
	maxErrorBodyBytes = 64 << 10
)

// What one request may cost: past the timeout its outcome is unknown,
// and an answer is read up to a bound, never whole whatever its size (a
// hostile or broken service's 2 GiB or endless answer).
const (
	// DefaultTimeout bounds one request, its answer read whole included
	// (--http-timeout).
	DefaultTimeout = 10 * time.Second
	// MaxCallAnswerBytes bounds every answer but a sync page's: a send's
	// is four fields, a chat's creation and a counter's fewer.
	MaxCallAnswerBytes = 4 << 20
	// DefaultMaxPageBytes bounds a sync page's answer (--max-answer-bytes):
	// 1000 messages of 16 KiB each.
	DefaultMaxPageBytes = 16 << 20
	// shownAnswerBytes is how much of an answer a message quotes.
	shownAnswerBytes = 200
)

// client is one run's connection to the service.
type client struct {
	base      *url.URL
	api       *API
	http      *http.Client
	settings  settings
	faults    bool // forward fault plans and races (chatseq serve's test hooks)
	noCounter bool // the service answered the counter hook with a 404 of its own: it has none
	retry     statusRetry
	sendURLs  sync.Map // chat → its *chatSends (sendsTo)
	firstBad  atomic.Pointer[string]
	readers   sync.Map // chat → the member that created it (reader)
	// members are the members each chat was created with (chat →
	// []string): a refusal of one as no member is a breach of the API
	// (refusesAMember), and syncs read a chat as each in turn.
	members  sync.Map
	syncTurn atomic.Uint64
	codes    serviceCodes
	// nemesis kills and restarts the service (--serve, --nemesis-cmd).
	nemesis func(context.Context) error
}

// KillServer is the run's kill_server fault (target.ServerKiller).
func (c *client) KillServer(ctx context.Context) error {
	if c.nemesis == nil {
		return fmt.Errorf("kill_server needs --serve CMD or --nemesis-cmd CMD: chatseq did not start the service and has no command to fault it")
	}
	return c.nemesis(ctx)
}

func newClient(base *url.URL, api *API, s settings, conns int, rt http.RoundTripper) *client {
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 0, conns
		if s.tls != nil {
			t.TLSClientConfig = s.tls
		}
		rt = t
	}
	return &client{base: base, api: api, faults: api.TestHooks, settings: s, http: &http.Client{
		Transport: locationKept{rt}, Timeout: s.timeout,
		// No redirect is followed: net/http would resend a POST as a GET
		// and record the GET's answer as the send's, and would carry
		// --header's credentials to wherever Location points. A 3xx is
		// the answer (docs/http-api.md, "Redirects").
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// url fills {chat} into path and resolves it against the base URL.
func (c *client) url(path, chat string, query url.Values) string {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + strings.ReplaceAll(path, "{chat}", chat)
	u.RawPath = ""
	if query != nil {
		u.RawQuery = query.Encode()
	}
	return u.String()
}

// answer is a response read whole, or up to its bound.
type answer struct {
	status int
	header http.Header
	body   []byte
	// cut: the answer was longer than its bound; body holds its first
	// bytes, up to the bound.
	cut bool
	// announced is the Content-Length the answer gave, -1 none.
	announced int64
}

// do sends one request with body (JSON; nil: none) and reads at most
// limit bytes of its answer; a nil answer comes with the error the
// client saw.
func (c *client) do(ctx context.Context, method, url string, header http.Header, body []byte, limit int64) (*answer, error) {
	return c.doRetrying(ctx, method, url, header, body, limit, refused)
}

// doHook is do for a call to a test hook, which is safe to make again:
// also retried when the connection was reset or closed under it (a
// server killed as the call went, or a connection to the killed process
// reused), until refusedPatience.
func (c *client) doHook(ctx context.Context, method, url string, body []byte) (*answer, error) {
	return c.doRetrying(ctx, method, url, nil, body, MaxCallAnswerBytes, func(err error) bool {
		return refused(err) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	})
}

// doRetrying sends until an answer comes, an error again does not hold,
// or refusedPatience has passed.
func (c *client) doRetrying(ctx context.Context, method, url string, header http.Header, body []byte, limit int64, again func(error) bool) (*answer, error) {
	deadline := time.Now().Add(refusedPatience)
	wait := refusedBackoff
	for {
		a, err := c.send(ctx, method, url, header, body, body != nil, limit)
		if err == nil || !again(err) || time.Now().After(deadline) {
			return a, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait/2 + time.Duration(rand.Int64N(int64(wait/2)+1))):
		}
		wait = min(2*wait, 20*refusedBackoff)
	}
}

// send is one attempt of do.
func (c *client) send(ctx context.Context, method, url string, header http.Header, payload []byte, hasBody bool, limit int64) (*answer, error) {
	var rd io.Reader
	if hasBody {
		// A bytes.Reader, which net/http writes with the headers in one
		// segment: behind any other reader type it flushes the headers
		// first, two writes and two wake-ups of the server per send.
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	// Without GetBody a request with a body is not replayable: net/http
	// would otherwise resend one carrying an Idempotency-Key on its own
	// when a reused connection drops (a crashed server), and the history
	// would show one attempt where the service saw two.
	req.GetBody = nil
	c.settings.applyHeader(req)
	for k, vs := range header {
		req.Header[k] = vs
	}
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, cut, err := readBounded(resp.Body, resp.ContentLength, limit)
	if err != nil {
		return nil, err // cut off mid-answer: as if none came
	}
	return &answer{status: resp.StatusCode, header: resp.Header, body: b, cut: cut, announced: resp.ContentLength}, nil
}

// readBounded reads r up to limit bytes; cut says it held more, and then
// only its first bytes are kept. It reads in chunks and joins them once
// the whole answer is in, so an answer near the bound costs about the
// bound, not a buffer doubled past it; and one announced (Content-Length)
// beyond the bound is not read on.
func readBounded(r io.Reader, announced, limit int64) ([]byte, bool, error) {
	const chunk = 64 << 10
	if announced > limit {
		first := make([]byte, min(chunk, limit))
		n, err := io.ReadFull(r, first)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, false, err
		}
		return first[:n], true, nil
	}
	var chunks [][]byte
	total := int64(0)
	next := int64(512) // a send's answer fits, read at once
	if announced >= 0 {
		next = announced + 1 // and one byte more, to see the end
	}
	for {
		buf := answerBuffer(min(next, limit+1-total))
		next = min(max(2*total, 512), chunk)
		n, err := fill(r, buf)
		if n > 0 {
			chunks = append(chunks, buf[:n])
			total += int64(n)
		}
		if total > limit {
			return chunks[0][:min(int64(len(chunks[0])), limit)], true, nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			// Cut off mid-answer (a body shorter than its
			// Content-Length reads io.ErrUnexpectedEOF), or reset.
			return nil, false, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], false, nil
	}
	return bytes.Join(chunks, nil), false, nil
}

// fill reads r into buf until it is full (nil error) or r ends: io.EOF
// only where r itself ended cleanly, any other error as r gave it. Unlike
// io.ReadFull, which reports a clean end after some bytes as
// io.ErrUnexpectedEOF, it keeps that apart from an answer cut off
// mid-body, which net/http reports so.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// answerBuffer is a buffer of n bytes to read an answer into: one a page
// was read into before (releaseBody) when n is a page's size, else new.
// After a long run the final state is thousands of pages of a hundred
// kilobytes or more, each read into a buffer of its own.
func answerBuffer(n int64) []byte {
	if n >= pooledBody {
		if held, ok := spareBodies.Get().(*[]byte); ok && int64(cap(*held)) >= n {
			return (*held)[:n]
		}
	}
	return make([]byte, n)
}

// releaseBody gives an answer's body back once nothing reads it any more
// (a page whose messages were taken out of it).
func releaseBody(b []byte) {
	if cap(b) >= pooledBody && cap(b) <= maxPooledBody {
		b = b[:0]
		spareBodies.Put(&b)
	}
}

const (
	pooledBody    = 16 << 10
	maxPooledBody = 4 << 20
)

var spareBodies sync.Pool

// badAnswer is an answer that breaks the service's API: a finding about
// the service, recorded as bad_response, which the checker's
// api_conformance fails on. Its message names the request and quotes the
// answer's first bytes. A send's outcome is unknown (the service may have
// written before answering so); a sync, a read, had no effect.
// The first is kept for the report (BadAnswerExample).
func (c *client) badAnswer(method, url string, a *answer, definite bool, problem string) error {
	err := fmt.Errorf("%s %s answered %d %s: %s", method, requestPath(url), a.status, problem, quoteAnswer(a))
	msg := err.Error()
	c.firstBad.CompareAndSwap(nil, &msg)
	return &sequencer.Error{Code: CodeBadResponse, Definite: definite, Err: err}
}

// BadAnswerExample is the first answer that broke the API (target.BadAnswerExampler).
func (c *client) BadAnswerExample() string {
	if p := c.firstBad.Load(); p != nil {
		return *p
	}
	return ""
}

// requestPath is url without scheme, host or credentials: what a
// message may show of a request.
func requestPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.RequestURI()
}

// quoteAnswer quotes an answer's first bytes, and says how long it was.
func quoteAnswer(a *answer) string {
	q := redact.Quote(a.body, shownAnswerBytes)
	switch {
	case a.cut:
		q += " …" // its length is in the problem named
	case len(a.body) > shownAnswerBytes:
		q += fmt.Sprintf(" … (%d bytes)", len(a.body))
	}
	return q
}

// redirect names a 3xx answer's destination.
func redirect(a *answer) string {
	loc := a.header.Get("Location")
	if loc == "" {
		loc = a.header.Get(unparsedLocation)
	}
	loc = redact.Text(loc)
	return fmt.Sprintf("with a redirect to %q, which the API never answers (chatseq follows no redirect)", loc)
}

// Refused connections are retried for up to refusedPatience, from
// refusedBackoff doubling to 20 times that, jittered: nothing was sent,
// so the retry is safe, and a client waits for a restarting service
// rather than spin on its closed port. Past the patience the attempt
// fails (connection_refused).
const (
	refusedPatience = 10 * time.Second
	refusedBackoff  = 10 * time.Millisecond
)

func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// transportError classifies a request that got no answer: refused before
// it was sent, the write cannot have happened (fail); a timeout or a
// reset after it was sent leaves the outcome unknown (info).
func transportError(err error) *sequencer.Error {
	if refused(err) {
		return &sequencer.Error{Code: CodeRefused, Definite: true, Err: err}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &sequencer.Error{Code: CodeTimeout, Err: err}
	}
	return &sequencer.Error{Code: CodeConnection, Err: err}
}

// RetryAfter is an unknown outcome's or a failure's Retry-After: the
// writer waits at least this long before retrying the same key.
type RetryAfter struct {
	After time.Duration
	Err   error
}

func (r *RetryAfter) Error() string { return r.Err.Error() + " (retry after " + r.After.String() + ")" }
func (r *RetryAfter) Unwrap() error { return r.Err }

// RetryDelay is what bench's writers read (bench.RetryDelayer).
func (r *RetryAfter) RetryDelay() time.Duration { return r.After }

// statusError is a non-ok answer as an error the writer records.
func (c *client) statusError(a *answer, o Outcome) error {
	code := o.Code
	if code == "" && c.api.ErrorCode != "" {
		if v, ok := field(a.body, c.api.ErrorCode); ok {
			if code, _ = v.(string); code != "" {
				code = c.codes.take(redact.Known(code)) // recorded in the history as it is
			}
		}
	}
	if code == "" {
		code = codeStatusPrefix + strconv.Itoa(a.status)
	}
	var err error = fmt.Errorf("HTTP %d: %s", a.status, redact.Text(string(bytes.TrimSpace(a.body[:min(len(a.body), 300)]))))
	if d, ok := retryAfter(a.header.Get(httpapi.HeaderRetryAfter)); ok {
		err = &RetryAfter{After: d, Err: err}
	}
	return &sequencer.Error{Code: code, Definite: o.Outcome == OutcomeFail, Err: err}
}

// retryAfter reads Retry-After: seconds, or an HTTP date.
func retryAfter(h string) (time.Duration, bool) {
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseUint(h, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		// Whole seconds, any number of digits: past what a Duration holds
		// (about 292 years) it is longer than any wait, not absent; taken
		// as absent, or wrapped round, it let the client resend at once.
		if err != nil || s > uint64(math.MaxInt64/time.Second) {
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// field reads a dotted path from a JSON body.
func field(body []byte, path string) (any, bool) {
	v, ok := decode(body)
	if !ok {
		return nil, false
	}
	return walk(v, path)
}

// decode reads a JSON body, numbers kept as json.Number (a sequence may
// not fit a float64 exactly). A body is one JSON value: one followed by
// anything but white space (a second document, an HTML tail) is not
// JSON, as encoding/json's Unmarshal says; read as its first value, an
// answer naming two sequences passed.
func decode(body []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

func walk(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// uintOf reads a sequence: a JSON number or a string of digits.
func uintOf(v any) (uint64, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.ParseUint(x.String(), 10, 64)
		return n, err == nil
	case string:
		n, err := strconv.ParseUint(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// locationKept is a transport under which a redirect whose Location does
// not parse reaches chatseq as the answer it is: net/http's Client parses
// Location before it asks CheckRedirect, and its error was taken for a
// lost connection (info), so a service answering 302 with "Location:
// /%zz" passed api_conformance (an outside tester's). The Location moves
// to unparsedLocation: without one, the Client returns the answer.
type locationKept struct{ http.RoundTripper }

// unparsedLocation holds a redirect's Location that did not parse.
const unparsedLocation = "X-Chatseq-Unparsed-Location"

func (t locationKept) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(req)
	if err != nil || resp.StatusCode < 300 || resp.StatusCode > 399 {
		return resp, err
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		if _, perr := req.URL.Parse(loc); perr != nil {
			resp.Header.Del("Location")
			resp.Header.Set(unparsedLocation, loc)
		}
	}
	return resp, nil
}
