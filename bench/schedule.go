package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unsafe"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// opSeed is the random source of one operation, derived from the run seed,
// the writer and the operation's index alone: the same seed gives the same
// chats, keys, retries and faults in the same per-writer order, however the
// operations before it turned out.
func opSeed(seed int64, writer, op int) (uint64, uint64) {
	return uint64(seed) ^ (uint64(writer)<<40 | 0x9e3779b97f4a7c15), uint64(op)
}

// OpPlan is what a writer decided for one operation before sending it.
// Every decision comes from the seed alone; only what the store answers
// (and so how many retries an unknown outcome costs) can differ between runs.
type OpPlan struct {
	Sync             bool
	Chat             int // the chat to write; a sync reads the writer's last chat, or this one
	Key              string
	Raced            bool // a twin client sends the same key concurrently
	DuplicateAfterOK bool // the key is sent again after its ACK
	DuplicateLate    bool // and again DuplicateLateAfter later
	ReuseKey         bool // send with this client's previous key but other content
	KeyAcrossChats   bool // send with the key this client last sent to another chat
	KeyAcrossSenders bool // another member sends the key this client last sent to its chat
	OddKey           bool // the key is an unusual one (oddKey): long on an odd op
	oddLong          bool
	Outsider         bool // sent by a user who is not a member of the chat
	OutsiderSync     bool // a sync read as a user who is not a member of the chat
	Forged           bool // the body names another user than the caller (--forged-senders):
	forgedByMember   bool // on an odd op the caller is the writer's user, the body naming another member; else an outsider, the body naming the writer's
	TwinFaults       sequencer.FaultPlan
	content          string // contentPrefix + Key
	payloadHash      string // of content
	attempts         *rand.Rand
	rates            FaultRates
}

// PlanOp returns writer's plan for its op-th operation.
func PlanOp(cfg *Config, writer, op int) OpPlan {
	pl := newPlanner(cfg, writer)
	return pl.plan(op)
}

// planner plans one writer's operations on one random source, reseeded
// per operation: the same plans as PlanOp without a generator per
// operation. A plan's attempt faults draw from that source, so they must be
// drawn before the next plan.
type planner struct {
	cfg    *Config
	writer int
	src    *rand.PCG
	r      *rand.Rand
	zipf   *rand.Zipf // nil: uniform
	chats  int
	// contents holds the planned messages' contents (plans are made
	// one at a time, on the writer's goroutine).
	contents stringSlab
}

func newPlanner(cfg *Config, writer int) planner {
	src := rand.NewPCG(0, 0)
	pl := planner{cfg: cfg, writer: writer, src: src, r: rand.New(src), chats: cfg.LocalChats()}
	if cfg.Distribution == Zipf && cfg.ZipfS > 1 {
		pl.zipf = rand.NewZipf(pl.r, cfg.ZipfS, 1, uint64(pl.chats-1))
	}
	return pl
}

func (pl *planner) plan(op int) OpPlan {
	cfg, r := pl.cfg, pl.r
	pl.src.Seed(opSeed(cfg.Seed, pl.writer, op))
	p := OpPlan{Sync: r.Float64() < cfg.SyncRatio, rates: cfg.Faults}
	p.content, p.payloadHash = pl.contents.messageContent(pl.writer, op)
	p.Key = p.content[len(contentPrefix):]
	if pl.zipf != nil {
		p.Chat = int(pl.zipf.Uint64())
	} else {
		p.Chat = r.IntN(pl.chats)
	}
	p.Raced = r.Float64() < cfg.ConcurrentDuplicate
	p.DuplicateAfterOK = r.Float64() < cfg.DuplicateAfterOK
	p.ReuseKey = r.Float64() < cfg.ReuseKey
	if cfg.DuplicateLate > 0 {
		// Drawn only when asked for: every other decision of a seed stays
		// as it was.
		p.DuplicateLate = r.Float64() < cfg.DuplicateLate
	}
	if cfg.KeyAcrossChats > 0 {
		p.KeyAcrossChats = r.Float64() < cfg.KeyAcrossChats
	}
	p.Outsider = drawn(r, cfg.OutsiderSends)
	p.KeyAcrossSenders = pl.drawnApart(op, keyAcrossSendersSalt, cfg.KeyAcrossSenders)
	p.OddKey = pl.drawnApart(op, oddKeysSalt, cfg.OddKeys)
	p.oddLong = p.OddKey && op%2 == 1
	p.OutsiderSync = p.Sync && pl.drawnApart(op, outsiderSyncsSalt, cfg.OutsiderSyncs)
	p.Forged = !p.Sync && pl.drawnApart(op, forgedSendersSalt, cfg.ForgedSenders)
	p.forgedByMember = p.Forged && op%2 == 1
	if p.Raced {
		p.TwinFaults = drawFaults(r, cfg.Faults)
	}
	p.attempts = r
	return p
}

// The salts set each decision drawn apart (drawnApart) apart from the
// others.
const (
	keyAcrossSendersSalt = 0x6b65792d61637273
	oddKeysSalt          = 0x6f64642d6b657973
	outsiderSyncsSalt    = 0x6f75742d73796e63
	forgedSendersSalt    = 0x666f7267652d7364
)

// oddKeyPrefix starts every long odd key: their first hundred characters
// are one, so a service that cuts keys short takes them for one key.
var oddKeyPrefix = strings.Repeat("k", 100) + "-"

// oddKey is an unusual key: long, key after oddKeyPrefix (118 characters
// at most, under the API's 128); otherwise the client's last key (last)
// in upper case, a key of its own that differs from that one only in
// case. ok is false when last is "" or has no lower-case letter (turned
// already: turned back it would be a key sent before).
func oddKey(long bool, key, last string) (string, bool) {
	if long {
		return oddKeyPrefix + key, true
	}
	upper := strings.ToUpper(last)
	return upper, upper != last
}

// drawnApart is a draw at probability rate for operation op, made from
// the operation's seed but not from the plan's random stream: a decision
// added after the others, so that turning it on leaves every other
// decision of a seed (chats, keys, faults, retries) as it was.
func (pl *planner) drawnApart(op int, salt uint64, rate float64) bool {
	if rate <= 0 {
		return false
	}
	s1, s2 := opSeed(pl.cfg.Seed, pl.writer, op)
	x := splitMix64(s1 ^ splitMix64(s2^salt))
	return float64(x>>11)/(1<<53) < rate
}

// splitMix64 is SplitMix64's finaliser: every input bit reaches every
// output bit.
func splitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// AttemptFaults draws the faults of the next attempt, in attempt order.
func (p *OpPlan) AttemptFaults() sequencer.FaultPlan { return drawFaults(p.attempts, p.rates) }

func drawFaults(r *rand.Rand, f FaultRates) sequencer.FaultPlan {
	if f == (FaultRates{}) {
		// Nothing can fire; skipping the draws changes no decision, as
		// every later draw of the operation skips too.
		return sequencer.FaultPlan{}
	}
	p := sequencer.FaultPlan{
		StaleIdempotencyRead: r.Float64() < f.StaleRead,
		CrashAfterAllocate:   r.Float64() < f.CrashAfterAllocate,
		CrashInPersist:       r.Float64() < f.CrashInPersist,
		CrashAfterPersist:    r.Float64() < f.CrashAfterPersist,
		PublishFails:         r.Float64() < f.PublishFail,
	}
	p.CrashInPersistCommitted = r.IntN(2) == 0
	// The later faults draw only when on, so a run without them makes
	// the same decisions as before they existed.
	p.CrashBeforeAllocate = drawn(r, f.CrashBeforeAllocate)
	p.StoreError = drawStoreError(r, f)
	if drawn(r, f.SlowCommit) {
		p.CommitDelay = f.slowCommitDelay()
	}
	return p
}

// drawn is a draw at probability rate, made only when rate is positive.
func drawn(r *rand.Rand, rate float64) bool { return rate > 0 && r.Float64() < rate }

// drawStoreError picks the attempt's store error, if any: a throttled or
// failed (500) call among its four, or a cancelled transaction. When
// several strike, the first in that order wins.
func drawStoreError(r *rand.Rand, f FaultRates) sequencer.StoreFault {
	if !f.StoreErrors() {
		return sequencer.StoreFault{}
	}
	throttle, internal, canceled := drawn(r, f.StoreThrottle), drawn(r, f.StoreInternalError), drawn(r, f.TxnCanceledOther)
	call := sequencer.StoreCall(r.IntN(sequencer.StoreCalls))
	applied := r.IntN(2) == 0
	switch {
	case throttle:
		return sequencer.StoreFault{Kind: sequencer.StoreThrottled, Call: call}
	case internal:
		return sequencer.StoreFault{Kind: sequencer.StoreInternalError, Call: call, Applied: applied}
	case canceled:
		return sequencer.StoreFault{Kind: sequencer.TxnCanceledOther, Call: sequencer.CallTransact}
	}
	return sequencer.StoreFault{}
}

// ChatID names chat i with the default prefix.
func ChatID(i int) string { return chatID(DefaultChatPrefix, i) }

// DefaultChatPrefix starts every chat id of a run on a fresh store.
const DefaultChatPrefix = "chat-"

func chatID(prefix string, i int) string { return fmt.Sprintf("%s%04d", prefix, i) }

// SenderID names writer w's user; every writer is a member of every chat.
func SenderID(w int) string { return "user-" + strconv.Itoa(w) }

// OutsiderID names the user writer w sends or reads as from outside a
// chat (--outsider-sends, --outsider-syncs): a member of none.
func OutsiderID(w int) string { return "outsider-" + strconv.Itoa(w) }

// OutsiderDeviceUser names the k-th outsider device's user
// (--outsider-devices): a member of no chat.
func OutsiderDeviceUser(k int) string { return "outsider-push-" + strconv.Itoa(k) }

// AnonymousDeviceUser is the user the history names the k-th anonymous
// device's lines by (--anonymous-devices): its handshake names no user,
// and a history's user is never "". A member of no chat.
func AnonymousDeviceUser(k int) string { return "anonymous-" + strconv.Itoa(k) }

// contentPrefix starts the content of every planned message; its key
// follows, so one string holds both.
const contentPrefix = "message "

// messageContent is contentPrefix and the key of writer's op-th message,
// "w<writer>-m<op>", and the content's payload hash, all in one allocation.
func messageContent(writer, op int) (content, hash string) {
	var s stringSlab
	return s.messageContent(writer, op)
}

// stringSlab hands out strings cut from blocks it fills in turn: a
// writer's message contents, one allocation a few hundred of them where
// each had its own (an allocation a persist, 60 ns of a run's 4 µs). A
// block's bytes are never written again once handed out, and it is let go
// once no string cut from it is held. Blocks start small and double up to
// stringSlabBlock, as nameArena's do, so that a slab cut once (PlanOp,
// messageContent) costs about one string.
type stringSlab struct{ block []byte }

const stringSlabBlock = 16 << 10

// messageContent is the package's messageContent, cut from s.
func (s *stringSlab) messageContent(writer, op int) (content, hash string) {
	var buf [64]byte
	b := append(buf[:0], contentPrefix+"w"...)
	b = strconv.AppendInt(b, int64(writer), 10)
	b = append(b, "-m"...)
	b = strconv.AppendInt(b, int64(op), 10)
	n := len(b)
	b = target.AppendPayloadHash(b, b)
	both := s.cut(b)
	return both[:n], both[n:]
}

// cut returns b's bytes as a string in s's current block.
func (s *stringSlab) cut(b []byte) string {
	if len(b) > cap(s.block)-len(s.block) {
		s.block = make([]byte, 0, max(min(2*cap(s.block), stringSlabBlock), len(b)))
	}
	at := len(s.block)
	s.block = append(s.block, b...)
	return unsafe.String(&s.block[at], len(b))
}
