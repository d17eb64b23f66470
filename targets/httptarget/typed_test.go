package httptarget_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// retyped is chatseq's API with one value of its answers sent as another
// JSON type: a send's sequence as a string of digits ("sequence"), or
// its message id as a number ("message_id"); or with a twin of its
// sequence's name, "Sequence", beside it ("Sequence").
type retyped struct {
	next http.Handler
	what string
}

var (
	sequenceNumber = regexp.MustCompile(`"sequence":([0-9]+)`)
	messageIDText  = regexp.MustCompile(`"message_id":"[^"]*"`)
)

func (s retyped) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/messages") {
		s.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code/100 == 2 {
		switch s.what {
		case "sequence":
			body = sequenceNumber.ReplaceAll(body, []byte(`"sequence":"$1"`))
		case "Sequence":
			// A twin read for the sequence by a client matching names
			// regardless of case, as Go's encoding/json does.
			body = sequenceNumber.ReplaceAll(body, []byte(`"sequence":$1,"Sequence":1$1`))
		case "message_id":
			// One number for every message: a JavaScript client reads
			// every id of 2^53 and above this way as one.
			body = messageIDText.ReplaceAll(body, []byte(`"message_id":9007199254740993`))
		}
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(bytes.Clone(body))
}

// A send answered with its sequence as a JSON string, or its message id
// as a number, passed: the http target read them as the values they
// spell; so did one naming a twin "Sequence" beside its sequence, which
// a client matching names regardless of case reads instead. chatseq's
// API types its answers and names their members exactly
// (docs/openapi.yaml): each is now a bad_response, and api_conformance
// fails.
func TestASendAnsweredInOtherTypesBreaksChatseqsAPI(t *testing.T) {
	if !httptarget.DefaultAPI().Send.Typed {
		t.Fatal("chatseq's API does not type its send answers")
	}
	for _, what := range []string{"sequence", "message_id", "Sequence"} {
		// Every send breaks the API, and is retried: a short run.
		rep, _ := checkedRunAgainst(t, retyped{next: chatseqAPI(t), what: what}, func(cfg *bench.Config) { cfg.Ops = 20 })
		r, _ := rep.Result(checker.NameAPIConformance)
		if r.Status != checker.Fail || !strings.Contains(r.Detail, "bad_response") {
			t.Errorf("%s retyped: api_conformance %s: %s", what, r.Status, r.Detail)
		}
	}
}
