package httptarget

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/jsonstr"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
)

// CreateChat creates the chat with its members; any answer but 2xx fails
// the run's set-up.
func (c *client) CreateChat(ctx context.Context, chat string, members []string) error {
	spec := c.api.CreateChat
	body := map[string]any{spec.MembersField: members}
	if spec.ChatField != "" {
		body[spec.ChatField] = chat
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	// A member creates the chat; every member reads it afterwards, in
	// turn (syncReader).
	if len(members) > 0 {
		c.readers.Store(chat, members[0])
		c.members.Store(chat, slices.Clone(members))
	}
	a, err := c.do(ctx, spec.Method, c.url(spec.Path, chat, nil), c.asUser(nil, c.reader(chat)), payload, MaxCallAnswerBytes)
	if err != nil {
		return err
	}
	if a.status/100 != 2 {
		return fmt.Errorf("%s %s answered %d: %s", spec.Method, spec.Path, a.status, quoteAnswer(a))
	}
	return nil
}

// refusesAMember says, unless "", that err, the answer to user's call on
// chat, refuses user as no member of a chat this client created with
// user among its members (chatseq's runs change no membership): a
// service that refused its members' sends or syncs 403 passed, each a
// definite failure with no effect (an outside tester's).
func (c *client) refusesAMember(chat, user string, err error) string {
	var se *sequencer.Error
	if user == "" || !errors.As(err, &se) || se.Code != sequencer.CodeNotAMember {
		return ""
	}
	if !slices.Contains(c.membersOf(chat), user) {
		return ""
	}
	return fmt.Sprintf("refusing %q as no member (%s), whom the chat was created with", user, sequencer.CodeNotAMember)
}

// membersOf are the members the client created chat with (nil for a
// chat it did not create).
func (c *client) membersOf(chat string) []string {
	if ms, ok := c.members.Load(chat); ok {
		return ms.([]string)
	}
	return nil
}

// syncReader is the member a sync of chat reads it as: each of its members
// in turn, so that a service serving only the chat's creator, or each
// member its own view, is read as every member (every sync was the
// creator's, and a service refusing the others' passed: an outside
// tester's). reader's for a chat the client did not create.
func (c *client) syncReader(chat string) string {
	ms := c.membersOf(chat)
	if len(ms) == 0 {
		return c.reader(chat)
	}
	return ms[c.syncTurn.Add(1)%uint64(len(ms))]
}

// reader is the member the client reads chat as: the first it created it
// with ("" for a chat it did not create).
func (c *client) reader(chat string) string {
	if u, ok := c.readers.Load(chat); ok {
		return u.(string)
	}
	return ""
}

// asUser names user in header (made when nil) as the API's user header
// says; unchanged without one.
func (c *client) asUser(header http.Header, user string) http.Header {
	if c.api.UserHeader == "" || user == "" {
		return header
	}
	if header == nil {
		header = http.Header{}
	}
	header.Set(c.api.UserHeader, user)
	return header
}

// errNoCounter: the counter is reachable only through chatseq serve's
// test hook.
func (c *client) counterHook() error {
	if c.api.Counter.Path == "" {
		return fmt.Errorf("the service's API has no counter hook (chatseq serve's test hook): initial_counter and delete_counter cannot reach its counters")
	}
	return nil
}

func (c *client) SetCounter(ctx context.Context, chat string, v uint64) error {
	if err := c.counterHook(); err != nil {
		return err
	}
	payload, err := json.Marshal(map[string]uint64{c.api.Counter.Value: v})
	if err != nil {
		return err
	}
	a, err := c.do(ctx, http.MethodPut, c.url(c.api.Counter.Path, chat, nil), nil, payload, MaxCallAnswerBytes)
	if err != nil {
		return err
	}
	if a.status/100 != 2 {
		return fmt.Errorf("setting the counter answered %d: %s", a.status, quoteAnswer(a))
	}
	return nil
}

func (c *client) DeleteCounter(ctx context.Context, chat string) error {
	if err := c.counterHook(); err != nil {
		return err
	}
	a, err := c.do(ctx, http.MethodDelete, c.url(c.api.Counter.Path, chat, nil), nil, nil, MaxCallAnswerBytes)
	if err != nil {
		return err
	}
	if a.status/100 != 2 {
		return fmt.Errorf("deleting the counter answered %d: %s", a.status, quoteAnswer(a))
	}
	return nil
}

// KafkaOutage is the run's kafka_outage fault (target.KafkaFaulter):
// chatseq serve's test hook fails the server's produces for d. A service
// restarting meanwhile (a kill) is waited for, as every call waits
// (client.do); the restarted process has no outage.
func (c *client) KafkaOutage(ctx context.Context, d time.Duration) error {
	if !c.api.TestHooks {
		return fmt.Errorf("%s needs chatseq serve's test hooks (--serve, or chatseq serve --test-hooks): the service's API has none", target.KafkaOutage)
	}
	payload, err := json.Marshal(httpapi.KafkaOutageRequest{ForMS: max(d.Milliseconds(), 1)})
	if err != nil {
		return err
	}
	a, err := c.doHook(ctx, http.MethodPost, c.url(httpapi.KafkaOutagePath, "", nil), payload)
	if err != nil {
		return fmt.Errorf("%s: %w", target.KafkaOutage, err)
	}
	if a.status/100 != 2 {
		return fmt.Errorf("%s: the service answered %d: %s", target.KafkaOutage, a.status, quoteAnswer(a))
	}
	return nil
}

// Persist sends one attempt, resent with the same key while the service
// answers 503 or 429 (retry.go). Its outcome is what the last answer says,
// as the mapping reads it; no answer is a transport error.
func (c *client) Persist(ctx context.Context, req sequencer.Request, _ sequencer.Tracer) (sequencer.Outcome, error) {
	spec := c.api.Send
	named := req.Sender
	if req.ClaimedSender != "" {
		named = req.ClaimedSender // a forged send: the call is still Sender's
	}
	fields := sendFields{{spec.SenderField, named}, {spec.ContentField, req.Content}}
	if spec.ChatField != "" {
		fields = fields.with(spec.ChatField, req.Chat)
	}
	header := c.asUser(http.Header{}, req.Sender)
	if spec.KeyHeader != "" {
		header.Set(spec.KeyHeader, req.Key)
	} else {
		fields = fields.with(spec.KeyField, req.Key)
	}
	body := fields.appendJSON(make([]byte, 0, 64+len(named)+len(req.Content)+len(req.Chat)+len(req.Key)))
	sends := c.sendsTo(req.Chat)
	to := sends.url
	if c.faults {
		if f := httpapi.FormatFaults(req.Faults); f != "" {
			header.Set(httpapi.HeaderFaults, f)
		}
		if req.Faults.Race != nil {
			header.Set(httpapi.HeaderRace, "2")
		}
	}
	// A store error the run asked chatseq serve for is this attempt's
	// fault, answered 503 again on every resend of its header: the run's
	// client judges it as in process, where nothing retries it.
	maxSends := c.retry.attempts
	if c.faults && req.Faults.StoreError.Kind != sequencer.NoStoreError {
		maxSends = 1
	}
	sends.sent.Add(1)
	a, err := c.do(ctx, spec.Method, to, header, body, MaxCallAnswerBytes)
	for sent := 1; err == nil && !a.cut && retryableStatus(a.status) && sent < maxSends; sent++ {
		if !c.retry.wait(ctx, sent, a) {
			break
		}
		// The same request, key included (what the client saw last
		// decides the outcome), but no longer racing its twin, which has
		// its answer.
		header.Del(httpapi.HeaderRace)
		sends.sent.Add(1)
		a, err = c.do(ctx, spec.Method, to, header, body, MaxCallAnswerBytes)
	}
	if err != nil {
		e := transportError(err)
		if code := crashAsked(req.Faults); c.faults && code != "" && e.Code == CodeConnection {
			// The connection dropped where this client asked chatseq
			// serve to crash: name the crash, as in process.
			e.Code = code
		}
		return sequencer.Outcome{}, e
	}
	if problem := c.api.offAPI(a, MaxCallAnswerBytes); problem != "" {
		// The service may have written before answering so.
		return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, problem)
	}
	if problem := c.api.unmappedSuccess(a.status); problem != "" {
		return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, problem)
	}
	o := c.api.outcome(a.status)
	if o.Outcome != OutcomeOK {
		err := c.statusError(a, o)
		// A member's send whose body names another member is refused as
		// the API refuses it (403): no breach.
		if problem := c.refusesAMember(req.Chat, req.Sender, err); req.ClaimedSender == "" && problem != "" {
			return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, problem)
		}
		return sequencer.Outcome{}, err
	}
	// A body that is not JSON has no sequence.
	doc := readJSON(a.body)
	if spec.Typed {
		if twin := doc.twin(spec.Sequence, spec.MessageID, spec.AnswerChat, spec.AnswerKey); twin != "" {
			return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, "with "+twin)
		}
	}
	seqV, ok1 := doc.field(spec.Sequence)
	seq, ok2 := rawUint(seqV)
	if ok1 && spec.Typed && !isJSONNumber(seqV) {
		return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, fmt.Sprintf("with its sequence at %q a JSON %s: the API's is an integer", spec.Sequence, jsonKind(seqV)))
	}
	if !ok1 || !ok2 || seq == 0 {
		// A success the client cannot read: it knows the write happened,
		// not what it was given.
		return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, fmt.Sprintf("without a sequence (a whole number from 1 to 2^64-1) at %q", spec.Sequence))
	}
	res := sequencer.Result{Seq: seq}
	if v, ok := doc.field(spec.MessageID); ok {
		if spec.Typed && !isJSONString(v) {
			return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, fmt.Sprintf("with its message id at %q a JSON %s: the API's is a string (JavaScript reads two ids of 2^53 and above as one number)", spec.MessageID, jsonKind(v)))
		}
		res.MessageID = rawString(v)
	}
	if res.MessageID == "" {
		// A history's ids are never empty: recorded, it left a file the
		// check refuses, and read as no id it hid a moved message.
		return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, fmt.Sprintf("without a message id (a string, not empty) at %q", spec.MessageID))
	}
	if problem := history.TooLong("message id", res.MessageID); problem != "" {
		return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, "with "+problem)
	}
	for _, given := range []struct{ path, sent, what string }{{spec.AnswerChat, req.Chat, "chat"}, {spec.AnswerKey, req.Key, "idempotency key"}} {
		if given.path == "" {
			continue
		}
		v, ok := doc.field(given.path)
		if spec.Typed && (!ok || !isJSONString(v)) {
			// The API's answer names both, as strings.
			return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, fmt.Sprintf("without the %s, a string, at %q: the API's answer gives it back", given.what, given.path))
		}
		if ok && rawString(v) != given.sent {
			// The acknowledgement is another message's: the send's own
			// outcome is not known.
			return sequencer.Outcome{}, c.badAnswer(spec.Method, to, a, false, fmt.Sprintf("naming another %s at %q than the request's", given.what, given.path))
		}
	}
	if spec.ReplayedHeader != "" {
		res.Dedup = a.header.Get(spec.ReplayedHeader) == "true"
	}
	return sequencer.Outcome{Result: res, Attempts: 1}, nil
}

// Sync reads one page after after, with each message's content where
// the page gives it: the history records what the page said each message
// carried, and the check compares it with what was sent (a service whose
// later pages altered messages passed).
func (c *client) Sync(ctx context.Context, chat string, after uint64, limit int) ([]store.Message, error) {
	return c.syncPages(ctx, c.syncReader(chat), chat, after, limit)
}

// SyncAs is Sync read as user (target.UserReader): the runner names each
// writer's user, and now and then one who is a member of no chat, whose
// read the service must refuse under read_membership: checked.
func (c *client) SyncAs(ctx context.Context, user, chat string, after uint64, limit int) ([]store.Message, error) {
	return c.syncPages(ctx, user, chat, after, limit)
}

// syncPages reads up to limit messages after after as user: a page, and
// the pages after it while the service caps one below what was asked
// and says where to go on (next_after). The sync's line records the
// limit asked, and sync_completeness takes a shorter answer for the
// chat's end: a capped page alone failed it for messages the service
// held and would have given next (a CI run of a81c5a3). Each page adds a
// message, so at most limit pages are read; a failed one fails the sync.
func (c *client) syncPages(ctx context.Context, user, chat string, after uint64, limit int) ([]store.Message, error) {
	limit = min(limit, c.api.Sync.MaxLimit)
	var out []store.Message
	for {
		msgs, given, more, err := c.pageAs(ctx, user, chat, after, limit-len(out), noRetry)
		if err != nil {
			return nil, err
		}
		markContent(msgs, given)
		if out == nil && (!more || len(msgs) >= limit) {
			return msgs, nil // one page, the common case: no copy
		}
		out = append(out, msgs...)
		if !more || len(msgs) == 0 || len(out) >= limit {
			return out, nil
		}
		after = msgs[len(msgs)-1].Seq
	}
}

// ClaimsSenders: the call names its caller in a header and the body its
// sender (target.SenderClaimer), so a send can name another sender than
// its caller.
func (c *client) ClaimsSenders() bool { return c.api.UserHeader != "" && c.api.Send.SenderField != "" }

// ReadsAsUser: the service is told who reads where the API names its
// caller in a header.
func (c *client) ReadsAsUser() bool { return c.api.UserHeader != "" }

// markContent marks the messages a page gave no content for.
func markContent(msgs []store.Message, given []bool) {
	for i := range msgs {
		msgs[i].ContentUnknown = given == nil || !given[i]
	}
}

// pageAs reads one page as user, with each message's content (a
// writer's sync, a device's catch-up and the final state read back all
// compare it with what was sent), and whether the page gave it (a string
// at the content path, empty or not) message by message.
// An answer asking to come back (503, 429) is read again as retry says.
func (c *client) pageAs(ctx context.Context, user, chat string, after uint64, limit int, retry statusRetry) (msgs []store.Message, contentGiven []bool, full bool, err error) {
	spec := c.api.Sync
	q := url.Values{spec.AfterParam: {strconv.FormatUint(after, 10)}, spec.LimitParam: {strconv.Itoa(limit)}}
	to := c.url(spec.Path, chat, q)
	a, err := c.do(ctx, spec.Method, to, c.asUser(nil, user), nil, c.settings.maxPage)
	for tried := 1; err == nil && !a.cut && retryableStatus(a.status) && tried < retry.attempts; tried++ {
		if !retry.wait(ctx, tried, a) {
			break
		}
		a, err = c.do(ctx, spec.Method, to, c.asUser(nil, user), nil, c.settings.maxPage)
	}
	if err != nil {
		return nil, nil, false, transportError(err)
	}
	if problem := c.api.offAPI(a, c.settings.maxPage); problem != "" {
		return nil, nil, false, c.badAnswer(spec.Method, to, a, true, problem)
	}
	if a.status/100 != 2 {
		o := c.api.outcome(a.status)
		if o.Outcome == OutcomeOK {
			o.Outcome = OutcomeFail
		}
		err := c.statusError(a, o)
		if problem := c.refusesAMember(chat, user, err); problem != "" {
			return nil, nil, false, c.badAnswer(spec.Method, to, a, true, problem)
		}
		return nil, nil, false, err
	}
	msgs, contentGiven, items, next, problem := readPage(a.body, spec, chat)
	if problem == "" {
		problem = cursorProblem(spec, next, after, items, limit)
	}
	if problem != "" {
		return nil, nil, false, c.badAnswer(spec.Method, to, a, true, problem)
	}
	releaseBody(a.body) // the messages' strings are copies
	// More may follow a full page, or one that says where to ask again
	// from: a service may cap its pages below the limit asked for
	// ("at most limit"), and the final state read back stopped at its
	// first short page (an outside tester's false FAIL).
	return msgs, contentGiven, items >= limit || next.given && items > 0, nil
}

// cursorProblem says, unless "", how a page's next_after breaks
// docs/http-api.md's "Syncing" where the API has one (spec.NextAfter): a
// full page carries it, and an empty page's, if given, moves nowhere (a
// client following it skips the sequences it passes). A page's
// next_after that is not its last sequence readPage refuses.
func cursorProblem(spec SyncSpec, next nextAfter, after uint64, items, limit int) string {
	switch {
	case spec.NextAfter == "":
		return ""
	case items >= limit && !next.given:
		return fmt.Sprintf("with %d messages, a full page, and no %s: a client following the API stops there", items, spec.NextAfter)
	case items == 0 && next.given && next.seq != after:
		return fmt.Sprintf("empty, with a %s of %d after %d: a client following it skips the sequences between", spec.NextAfter, next.seq, after)
	}
	return ""
}

// readPage reads a sync page's messages by scanning its bytes once
// (pageScan), not by decoding it into maps: a final state read back over
// http is millions of messages (TestReadPageAgreesWithDecode holds it to
// decode and walk). contentGiven says, where spec reads content, whether
// each message has a string there: an empty content is content, compared
// as any other (a page that stripped it passed as one that left it out);
// where spec requires content, every message has it (empty if the page
// gave none: a page that left it out passed).
// items counts the list's entries; next says whether the page gave a
// next_after (not null), and its value; problem, unless "", says what the
// page lacks.
func readPage(body []byte, spec SyncSpec, chat string) (msgs []store.Message, contentGiven []bool, items int, next nextAfter, problem string) {
	s := newPageScan(spec)
	defer s.done()
	valid := s.scan(body)
	if !valid {
		// One JSON value the scan did not take as it stands: decoded
		// and encoded again; rare, so the slow way. (Anything but one
		// value, a tail after it included, decode refuses.)
		if v, ok := decode(body); ok {
			body, _ = json.Marshal(v)
			valid = s.scan(body)
		}
	}
	if valid && s.twin != "" {
		return nil, nil, 0, nextAfter{}, "with " + s.twin
	}
	if !valid || !s.found || !s.isList {
		return nil, nil, 0, nextAfter{}, fmt.Sprintf("without a list at %q", spec.Messages)
	}
	msgs = pageMessages(s.items())
	if spec.Content != "" {
		contentGiven = make([]bool, len(msgs))
	}
	text := 0 // bytes of the strings taken as they stand
	for n := range msgs {
		found := s.item(n)
		if contentGiven != nil {
			v := found[contentPath]
			contentGiven[n] = spec.ContentRequired || len(v) > 0 && v[0] == '"'
		}
		if spec.Typed {
			if problem := untyped(spec, found); problem != "" {
				return nil, nil, 0, nextAfter{}, "with a message whose " + problem
			}
		}
		seq, ok := rawUint(found[0])
		if !ok {
			return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a message without a sequence (a whole number) at %q", spec.Sequence)
		}
		if spec.Typed {
			if problem := untold(spec, found); problem != "" {
				return nil, nil, 0, nextAfter{}, "with a message whose " + problem
			}
		}
		msgs[n] = store.Message{Chat: chat, Seq: seq}
		for k := 1; k < len(found); k++ {
			if v, ok := verbatim(found[k]); ok {
				found[k] = v
				text += len(v)
			} else {
				setText(&msgs[n], k, rawString(found[k]))
				found[k] = nil
			}
		}
	}
	// The strings taken as they stand share one allocation: three a
	// message were most of a page's garbage. (What keeps one, the
	// checker, copies it: a page's text is not held on to.)
	var b strings.Builder
	b.Grow(text)
	for n := range msgs {
		for _, v := range s.item(n)[1:] {
			b.Write(v)
		}
	}
	all, at := b.String(), 0
	for n := range msgs {
		for k, v := range s.item(n) {
			if k > 0 && len(v) > 0 {
				setText(&msgs[n], k, all[at:at+len(v)])
				at += len(v)
			}
		}
		m := &msgs[n]
		if m.MessageID == "" {
			return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a message without a message id (a string, not empty) at %q", spec.MessageID)
		}
		for _, f := range [...]struct{ name, v string }{{"message id", m.MessageID}, {"key", m.Key}, {"sender", m.Sender}} {
			if problem := history.TooLong(f.name, f.v); problem != "" {
				return nil, nil, 0, nextAfter{}, "with a message with " + problem
			}
		}
	}
	if s.nextRaw != nil && string(s.nextRaw) != "null" {
		if spec.Typed && !isJSONNumber(s.nextRaw) {
			return nil, nil, 0, nextAfter{}, fmt.Sprintf("with its %s a JSON %s: the API's is an integer", spec.NextAfter, jsonKind(s.nextRaw))
		}
		v, ok := rawUint(s.nextRaw)
		if len(msgs) > 0 {
			// A client that follows it (docs/http-api.md, "Syncing")
			// skips or repeats messages when it is not the page's last
			// sequence; one ahead of it passed (an outside tester's).
			last := msgs[len(msgs)-1].Seq
			if !ok || v != last {
				return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a %s that is not its last sequence, %d", spec.NextAfter, last)
			}
		} else if !ok {
			return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a %s that is no sequence", spec.NextAfter)
		}
		next = nextAfter{given: true, seq: v}
	}
	return msgs, contentGiven, len(msgs), next, ""
}

// nextAfter is a page's next_after: where it says to ask again from.
type nextAfter struct {
	given bool
	seq   uint64
}

// setText sets a message's string at message path k (of pageScan's).
func setText(m *store.Message, k int, s string) {
	switch k {
	case 1:
		m.MessageID = s
	case 2:
		m.Key = s
	case 3:
		m.Sender = s
	case 4:
		m.Content = s
	}
}

// Settle waits for the service's work after its answers where it can ask.
func (c *client) Settle(ctx context.Context) error {
	if !c.api.TestHooks {
		return nil
	}
	// chatseq serve's hook: its outbox relay has published what was
	// committed, so the topic read back next holds it. A server without
	// it (404, or anything else) has nothing chatseq can ask about.
	a, err := c.doHook(ctx, http.MethodPost, c.url(httpapi.SettlePath, "", nil), nil)
	if err != nil {
		return fmt.Errorf("settling the service: %w", err)
	}
	// Only the hook's own failure fails the run: another service behind
	// chatseq's API may answer the path anything.
	if a.status == http.StatusServiceUnavailable && strings.Contains(string(a.body), `"settling: `) {
		return fmt.Errorf("settling the service: it answered %d: %s", a.status, quoteAnswer(a))
	}
	return nil
}

// Dump is the final state as the service shows it (Walk), whole.
func (c *client) Dump(ctx context.Context, chats []string) (store.State, error) {
	var st store.State
	err := c.Walk(ctx, chats, store.StateVisitor{
		Counter:    func(n store.Counter) { st.Counters = append(st.Counters, n) },
		Message:    func(m store.Message) { st.Messages = append(st.Messages, m) },
		TablesRead: func(t store.Tables) { st.Read = t },
	})
	if err != nil {
		return store.State{}, err
	}
	return st, nil
}

// Walk hands over the final state as the service shows it (store.Walker):
// every message of every chat through the sync API from sequence 0, page
// by page, a chat at a time as it is read, then the counters when the
// service has chatseq serve's hook, read after the messages (a counter
// read last is at least every sequence read before it). A run's final
// state is millions of messages: built whole, as Dump, it cost more
// memory than the run.
func (c *client) Walk(ctx context.Context, chats []string, v store.StateVisitor) error {
	// The messages are always read back; the counters only through the
	// hook; idempotency records never (the API shows none).
	if err := c.readBack(ctx, chats, v.Message); err != nil {
		return err
	}
	counters, err := c.counters(ctx, chats)
	if err != nil {
		return err
	}
	read := store.MessagesTable
	if counters != nil {
		read |= store.CountersTable
	}
	for _, n := range counters {
		v.Counter(n)
	}
	v.Read(read)
	return nil
}

// readBackWorkers is how many chats are read back at once: a request's
// round trip leaves the service's and chatseq's processors idle in turn.
const readBackWorkers = 4

// readBack reads every message of chats, page by page, up to
// readBackWorkers chats at a time, and hands them to visit in chats'
// order, each chat's as its pages gave them: the chat being handed over
// as its pages come, the ones read ahead of it (at most readBackWorkers)
// holding at most readAheadPages pages each until their turn. A chat
// held whole until its turn made a service that answers full pages
// forever grow chatseq's memory without bound (9 GB in five minutes).
// Once a chat fails, no chat starts and those being read stop at their
// next page; nothing after the first chat that failed is handed over,
// and the first failed chat in chats' order is the error.
func (c *client) readBack(ctx context.Context, chats []string, visit func(store.Message)) error {
	limit := min(defaultPageLimit, c.api.Sync.MaxLimit)
	type chatRead struct {
		pages chan []store.Message // closed once the chat is read, or stopped
		err   error                // set before pages is closed
	}
	reads := make([]chatRead, len(chats))
	for i := range reads {
		reads[i].pages = make(chan []store.Message, readAheadPages)
	}
	// A chat takes a slot before it is read, in chats' order, and gives
	// it back once handed over: the one handed over next always has one.
	ahead := make(chan struct{}, readBackWorkers)
	var failed atomic.Bool
	done := make(chan struct{}) // closed when readBack returns: readers stop
	defer close(done)
	go func() {
		for i := range reads {
			select {
			case ahead <- struct{}{}:
			case <-done:
				return
			}
			r := &reads[i]
			if failed.Load() {
				r.err = errReadBackStopped
				close(r.pages)
				continue
			}
			go func() {
				defer close(r.pages)
				r.err = c.readChat(ctx, chats[i], limit, &failed, func(page []store.Message) bool {
					select {
					case r.pages <- page:
						return true
					case <-done:
						recyclePage(page)
						return false
					}
				})
				if r.err != nil && r.err != errReadBackStopped {
					failed.Store(true)
				}
			}()
		}
	}()
	for i := range reads {
		r := &reads[i]
		for page := range r.pages {
			if !failed.Load() {
				for _, m := range page {
					visit(m)
				}
			}
			recyclePage(page)
		}
		<-ahead
		// A chat stopped (errReadBackStopped) was stopped by a later one
		// that failed, which the loop reaches.
		if r.err != nil && r.err != errReadBackStopped {
			return r.err
		}
	}
	return nil
}

// readAheadPages is how many pages a chat read ahead of the one being
// handed over may hold.
const readAheadPages = 8

// pageMessages is a page's n messages, zero, in a slice read back before
// when one is spare: after a long run the final state is thousands of
// pages, and a new slice of a thousand 128-byte messages each was a third
// of what the read back allocated (and the collector cleared).
func pageMessages(n int) []store.Message {
	if held, ok := spareMessages.Get().(*[]store.Message); ok && cap(*held) >= n {
		return (*held)[:n]
	}
	return make([]store.Message, n)
}

// recyclePage gives a page handed over back for the next page: its
// messages were copied by value (a visit keeps no pointer into them), and
// are cleared so the spare holds no strings.
func recyclePage(page []store.Message) {
	page = page[:cap(page)]
	clear(page)
	spareMessages.Put(&page)
}

var spareMessages sync.Pool

// errReadBackStopped: a chat's read stopped because another failed.
var errReadBackStopped = errors.New("stopped: another chat failed")

// readChat reads every message of chat from sequence 0 and hands each
// page to hand as it comes, unless stop is set before a page
// (errReadBackStopped) or hand declines it (readBack is over).
func (c *client) readChat(ctx context.Context, chat string, limit int, stop *atomic.Bool, hand func([]store.Message) bool) error {
	after, read, most := uint64(0), int64(0), c.mostMessages(chat)
	for {
		if read > most {
			return fmt.Errorf("reading %s back: %d messages and more pages, far more than the %d sends made to it (a correct service holds at most one a send, and what it writes itself): read no further", chat, read, c.sendsTo(chat).sent.Load())
		}
		if stop.Load() {
			return errReadBackStopped
		}
		// With their content: the check compares what the service holds
		// with what was sent (a service that stored every message
		// altered passed).
		msgs, given, full, err := c.pageAs(ctx, c.syncReader(chat), chat, after, limit, readBackRetry(c.retry))
		if err != nil {
			return fmt.Errorf("reading %s back after %d: %w", chat, after, err)
		}
		markContent(msgs, given)
		if len(msgs) == 0 {
			return nil
		}
		last := msgs[len(msgs)-1].Seq
		read += int64(len(msgs))
		if !hand(msgs) {
			return errReadBackStopped
		}
		if !full {
			return nil
		}
		if last <= after {
			return fmt.Errorf("reading %s back: a page after %d ends at %d, not beyond it", chat, after, last)
		}
		after = last
	}
}

// counters reads every chat's counter through the hook; nil when the
// service has no hook (a 404 that is not the hook's own "no counter"):
// then the counters were not read.
func (c *client) counters(ctx context.Context, chats []string) ([]store.Counter, error) {
	if c.api.Counter.Path == "" || c.noCounter {
		return nil, nil
	}
	out := make([]store.Counter, 0, len(chats))
	for _, chat := range chats {
		a, err := c.do(ctx, http.MethodGet, c.url(c.api.Counter.Path, chat, nil), nil, nil, MaxCallAnswerBytes)
		if err != nil {
			return nil, fmt.Errorf("reading the counter of %s: %w", chat, err)
		}
		switch {
		case a.status == http.StatusOK:
			v, ok := field(a.body, c.api.Counter.Value)
			n, ok2 := uintOf(v)
			if !ok || !ok2 {
				return nil, fmt.Errorf("the counter of %s: no value at %q: %s", chat, c.api.Counter.Value, quoteAnswer(a))
			}
			out = append(out, store.Counter{Chat: chat, Value: n})
		case a.status == http.StatusNotFound && errorCode(a.body) == httpapi.CodeChatNotFound:
			out = append(out, store.Counter{Chat: chat, Missing: true})
		case a.status == http.StatusNotFound || a.status == http.StatusMethodNotAllowed:
			c.noCounter = true
			return nil, nil
		default:
			return nil, fmt.Errorf("reading the counter of %s answered %d: %s", chat, a.status, quoteAnswer(a))
		}
	}
	return out, nil
}

func errorCode(body []byte) string {
	v, _ := field(body, "error.code")
	return stringOf(v)
}

// Close drops idle connections.
func (c *client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// crashAsked is the crash a fault plan makes the server die of: the
// first on its path (steps before 3, after 3, in 4, after 4), since an
// earlier one ends the request before a later one is reached.
func crashAsked(p sequencer.FaultPlan) string {
	switch {
	case p.CrashBeforeAllocate:
		return sequencer.CodeCrashBeforeAllocate
	case p.CrashAfterAllocate:
		return sequencer.CodeCrashAfterAllocate
	case p.CrashInPersist:
		return sequencer.CodeCrashInPersist
	case p.CrashAfterPersist:
		return sequencer.CodeCrashAfterPersist
	}
	return ""
}

// sendFields are a send's body fields in order; a name given twice keeps
// its last value, as the map they were once marshalled from did.
type sendFields [][2]string

func (f sendFields) with(name, value string) sendFields {
	for i := range f {
		if f[i][0] == name {
			f[i][1] = value
			return f
		}
	}
	return append(f, [2]string{name, value})
}

// appendJSON encodes the fields as one JSON object of strings, without
// the reflection json.Marshal spends inside every send's latency.
func (f sendFields) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, kv := range f {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstr.Append(b, kv[0])
		b = append(b, ':')
		b = jsonstr.Append(b, kv[1])
	}
	return append(b, '}')
}

// sendURL is the send path's URL for chat, built once per chat: the
// chats are the run's, few and sent to over and over.
func (c *client) sendURL(chat string) string { return c.sendsTo(chat).url }

// chatSends is what the client keeps of a chat it sends to: the send
// URL, and how many sends it made (the final state's read back stops
// far past that, readChat).
type chatSends struct {
	url  string
	sent atomic.Int64
}

func (c *client) sendsTo(chat string) *chatSends {
	if s, ok := c.sendURLs.Load(chat); ok {
		return s.(*chatSends)
	}
	s, _ := c.sendURLs.LoadOrStore(chat, &chatSends{url: c.url(c.api.Send.Path, chat, nil)})
	return s.(*chatSends)
}

// mostMessages is how many messages the final state's read back takes
// from a chat the client made sends to: a correct service holds at most
// one a send, and whatever it writes itself; a service that answers
// full pages past that for ever (or a great many more) is read no
// further.
func (c *client) mostMessages(chat string) int64 {
	return 2*c.sendsTo(chat).sent.Load() + 10000
}
