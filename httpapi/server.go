package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
)

// Sync page sizes: the default when a request names none, and the most
// one page may hold.
const (
	DefaultSyncLimit = 100
	MaxSyncLimit     = 1000
)

// maxBody bounds a request body: a message is small, a member list too.
const maxBody = 1 << 20

// Server puts a target.Target behind the API. It is safe for concurrent use.
type Server struct {
	target  target.Target
	races   raceRegistry
	live    *metrics.Recorder // nil: no live metrics
	members memberships
	// hooks: the test hooks answer (the counter paths, Chatseq-Faults,
	// Chatseq-Race); off unless asked for (WithTestHooks).
	hooks bool
	// sendMembers: a send's membership is read here, the design behind
	// reading none (WithSendMembership).
	sendMembers bool
	push        *Push // nil: no push channel (WithPush)
	// kafkaOutage fails the server's produces for a while (the
	// KafkaOutagePath test hook); nil: the server publishes to no Kafka.
	kafkaOutage func(time.Duration)
	pushing     pushConns
}

// NewServer serves t.
func NewServer(t target.Target) *Server { return &Server{target: t} }

// CountInto counts every send and sync the server answers in r, for live
// metrics (chatseq serve --metrics-addr); nil counts nothing.
func (s *Server) CountInto(r *metrics.Recorder) *Server {
	s.live = r
	return s
}

// WithTestHooks turns the test hooks on: the counter paths, which reach
// inside the design (a counter reset overwrites acknowledged messages), and
// the fault and race headers. Off, the counter paths answer 404 and a
// fault header 400 (test_hooks.off); a race header is ignored.
func (s *Server) WithTestHooks(on bool) *Server {
	s.hooks = on
	return s
}

// WithSendMembership makes the server refuse a non-member's send itself
// (403 chat.not_a_member), for a design whose send path reads no
// membership (the outbox's, the ledger's): the API promises the refusal
// whatever the design. Off, the design's own check answers (ADR-004's
// step 2), so a design that skips it shows through the API.
func (s *Server) WithSendMembership(on bool) *Server {
	s.sendMembers = on
	return s
}

// WithKafkaOutage lets the KafkaOutagePath test hook fail the server's
// produces for a while through outage (nil: the server has no Kafka).
func (s *Server) WithKafkaOutage(outage func(time.Duration)) *Server {
	s.kafkaOutage = outage
	return s
}

// Handler routes the API's paths.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/chats/{chat_id}", s.createChat)
	mux.HandleFunc("POST /v1/chats/{chat_id}/messages", s.send)
	mux.HandleFunc("GET /v1/chats/{chat_id}/messages", s.sync)
	mux.HandleFunc("GET /v1/chats/{chat_id}/delivery_state", s.deliveryState)
	mux.HandleFunc("GET "+PushPath, s.pushDevice)
	mux.HandleFunc("GET /v1/chats/{chat_id}/counter", s.hook(s.getCounter))
	mux.HandleFunc("PUT /v1/chats/{chat_id}/counter", s.hook(s.putCounter))
	mux.HandleFunc("DELETE /v1/chats/{chat_id}/counter", s.hook(s.deleteCounter))
	mux.HandleFunc("POST "+KafkaOutagePath, s.hook(s.startKafkaOutage))
	mux.HandleFunc("POST "+SettlePath, s.hook(s.settle))
	mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return mux
}

// hook answers a test hook's path only when the hooks are on.
func (s *Server) hook(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.hooks {
			writeError(w, http.StatusNotFound, CodeTestHooksOff, "the test hooks are off (chatseq serve --test-hooks)", "")
			return
		}
		h(w, r)
	}
}

// startKafkaOutage fails every produce of the server from now for the
// body's for_ms: the sends meanwhile commit and answer as their design
// answers a failed step 5, and the push channel, fed from the topic,
// stalls for what they did not publish.
func (s *Server) startKafkaOutage(w http.ResponseWriter, r *http.Request) {
	var body KafkaOutageRequest
	if !decodeBody(w, r, &body) {
		return
	}
	if body.ForMS <= 0 {
		writeError(w, http.StatusBadRequest, CodeBadRequest, "for_ms: must be positive (milliseconds the outage lasts)", "")
		return
	}
	if s.kafkaOutage == nil {
		writeError(w, http.StatusConflict, CodeKafkaOff, "the server publishes to no Kafka (chatseq serve --kafka embedded, or --brokers)", "")
		return
	}
	s.kafkaOutage(time.Duration(body.ForMS) * time.Millisecond)
	w.WriteHeader(http.StatusNoContent)
}

// settle waits for the target's work after its answers (target.Settle:
// an outbox relay publishing what was committed), so that a run reads a
// topic that holds it.
func (s *Server) settle(w http.ResponseWriter, r *http.Request) {
	if err := s.target.Settle(r.Context()); err != nil {
		writeError(w, http.StatusServiceUnavailable, CodeUnavailable, "settling: "+err.Error(), "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) createChat(w http.ResponseWriter, r *http.Request) {
	chat := r.PathValue("chat_id")
	user := caller(w, r)
	if user == "" {
		return
	}
	var body CreateChatRequest
	if !decodeBody(w, r, &body) {
		return
	}
	if len(body.Members) == 0 {
		writeError(w, http.StatusBadRequest, CodeBadRequest, "members must name at least one user", "")
		return
	}
	if !slices.Contains(body.Members, user) {
		writeError(w, http.StatusForbidden, CodeNotAMember, user+" creates a chat only among its members", "")
		return
	}
	if err := s.target.CreateChat(r.Context(), chat, body.Members); err != nil {
		if errors.Is(err, store.ErrChatExists) {
			writeError(w, http.StatusConflict, CodeChatExists, "chat "+chat+" exists", "")
			return
		}
		writeUnavailable(w, err)
		return
	}
	s.members.record(chat, body.Members)
	if s.push != nil {
		s.push.Gateway.SetMembers(chat, body.Members)
	}
	writeJSON(w, http.StatusCreated, Chat{ChatID: chat, Members: body.Members})
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	chat := r.PathValue("chat_id")
	user := caller(w, r)
	if user == "" {
		return
	}
	key := r.Header.Get(HeaderIdempotencyKey)
	switch {
	case key == "":
		writeError(w, http.StatusBadRequest, CodeKeyRequired, "the Idempotency-Key header is required", "")
		return
	case len(key) > MaxKeyLength:
		writeError(w, http.StatusBadRequest, CodeKeyTooLong, fmt.Sprintf("Idempotency-Key is longer than %d characters", MaxKeyLength), "")
		return
	}
	var body SendRequest
	if !decodeBody(w, r, &body) {
		return
	}
	// The sender is who is calling, never what the body claims.
	switch {
	case body.SenderID == "":
		body.SenderID = user
	case body.SenderID != user:
		writeError(w, http.StatusForbidden, CodeSenderMismatch, "sender_id "+strconv.Quote(body.SenderID)+" is not the caller ("+HeaderUser+")", "")
		return
	}
	if s.sendMembers && !s.member(w, r, chat, user) {
		return
	}
	faults, ok := s.faults(w, r, chat, key)
	if !ok {
		return
	}
	req := sequencer.Request{
		Chat: chat, Key: key, Sender: body.SenderID, Content: body.Content,
		ContentType: body.ContentType, PayloadHash: PayloadHash(body),
		Faults: faults,
	}
	out, err := s.target.Persist(r.Context(), req, nil)
	kind, code := target.Completion(err)
	op := metrics.PersistOp(kind, code, out, faults.Any(), -1)
	s.live.Record(&op)
	if err != nil {
		writePersistError(w, err)
		return
	}
	if out.Dedup {
		w.Header().Set(HeaderReplayed, "true")
	}
	writeJSON(w, http.StatusCreated, SendResponse{
		ChatID: chat, ClientMessageID: key, MessageID: out.MessageID, Sequence: out.Seq,
	})
}

// faults reads the test hooks' headers of a send; false once it has
// answered 400 (a fault plan asked of a server whose hooks are off, or
// one it cannot read).
func (s *Server) faults(w http.ResponseWriter, r *http.Request, chat, key string) (sequencer.FaultPlan, bool) {
	h := r.Header.Get(HeaderFaults)
	if h != "" && !s.hooks {
		writeError(w, http.StatusBadRequest, CodeTestHooksOff, HeaderFaults+" asks for faults, but the test hooks are off (chatseq serve --test-hooks)", "")
		return sequencer.FaultPlan{}, false
	}
	faults, err := ParseFaults(h)
	if err != nil {
		writeError(w, http.StatusBadRequest, CodeBadRequest, HeaderFaults+": "+err.Error(), "")
		return sequencer.FaultPlan{}, false
	}
	if s.hooks && r.Header.Get(HeaderRace) != "" {
		faults.Race = s.races.join(chat, key)
	}
	return faults, true
}

// PayloadHash is what tells a retry from a key reused with other content:
// the sender, content type and content, hashed.
func PayloadHash(b SendRequest) string {
	h := sha256.New()
	for _, s := range []string{b.SenderID, b.ContentType, b.Content} {
		io.WriteString(h, strconv.Itoa(len(s)))
		io.WriteString(h, ":")
		io.WriteString(h, s)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// memberChat reads the request's chat and caller and answers for it unless
// the caller is one of the chat's members: 403 whether or not the chat
// exists, so a non-member learns nothing of it.
func (s *Server) memberChat(w http.ResponseWriter, r *http.Request) (chat string, ok bool) {
	chat = r.PathValue("chat_id")
	user := caller(w, r)
	if user == "" || !s.member(w, r, chat, user) {
		return "", false
	}
	return chat, true
}

// member answers 403 (or 503 when the membership could not be read)
// unless user is one of chat's members.
func (s *Server) member(w http.ResponseWriter, r *http.Request, chat, user string) bool {
	member, err := s.members.isMember(r.Context(), s.target, chat, user)
	if err != nil {
		writeUnavailable(w, err)
		return false
	}
	if !member {
		writeError(w, http.StatusForbidden, CodeNotAMember, user+" is not a member of "+chat, "")
		return false
	}
	return true
}

func (s *Server) sync(w http.ResponseWriter, r *http.Request) {
	chat, ok := s.memberChat(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	after, limit := uint64(0), DefaultSyncLimit
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, CodeBadRequest, "after must be a sequence (an unsigned integer), got "+strconv.Quote(v), "")
			return
		}
		after = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxSyncLimit {
			writeError(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("limit must be an integer from 1 to %d, got %q", MaxSyncLimit, v), "")
			return
		}
		limit = n
	}
	msgs, err := s.target.Sync(r.Context(), chat, after, limit)
	kind, code := target.Completion(err)
	s.live.Record(&metrics.Op{Sync: true, Outcome: metrics.OutcomeOf(kind), Code: code, Chat: -1})
	if err != nil {
		writeUnavailable(w, err)
		return
	}
	var next *uint64
	if len(msgs) == limit {
		last := msgs[len(msgs)-1].Seq
		next = &last
	}
	writeSyncPage(w, msgs, next)
}

// The counter hooks let a test set a chat's counter up (a scenario's
// initial_counter), delete it (ADR-004's SEV-2) and read it after a run.
// They reach inside the design: a production service has none.

func (s *Server) getCounter(w http.ResponseWriter, r *http.Request) {
	chat := r.PathValue("chat_id")
	state, err := s.target.Dump(r.Context(), []string{chat})
	if err != nil {
		writeUnavailable(w, err)
		return
	}
	for _, c := range state.Counters {
		if c.Chat == chat && !c.Missing {
			writeJSON(w, http.StatusOK, Counter{Value: c.Value})
			return
		}
	}
	writeError(w, http.StatusNotFound, CodeChatNotFound, "chat "+chat+" has no counter", "")
}

func (s *Server) putCounter(w http.ResponseWriter, r *http.Request) {
	var body Counter
	if !decodeBody(w, r, &body) {
		return
	}
	if err := s.target.SetCounter(r.Context(), r.PathValue("chat_id"), body.Value); err != nil {
		writeUnavailable(w, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) deleteCounter(w http.ResponseWriter, r *http.Request) {
	if err := s.target.DeleteCounter(r.Context(), r.PathValue("chat_id")); err != nil {
		writeUnavailable(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// decodeBody reads a JSON body strictly; false once it has answered 400.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, CodeBadRequest, "the body is not the JSON this path takes: "+err.Error(), "")
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, CodeBadRequest, "the body holds more than one JSON value", "")
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg, cause string) {
	writeJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: msg, Cause: cause}})
}
