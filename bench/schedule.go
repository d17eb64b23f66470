package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/chatseq/chatseq/sequencer"
)

// opRand is the random source of one operation, derived from the run seed,
// the writer and the operation's index alone: the same seed gives the same
// chats, keys, retries and faults in the same per-writer order, however the
// operations before it turned out.
func opRand(seed int64, writer, op int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed)^(uint64(writer)<<40|0x9e3779b97f4a7c15), uint64(op)))
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
	ReuseKey         bool // send with this client's previous key but other content
	TwinFaults       sequencer.FaultPlan
	attempts         *rand.Rand
	rates            FaultRates
}

// PlanOp returns writer's plan for its op-th operation.
func PlanOp(cfg *Config, writer, op int) OpPlan {
	r := opRand(cfg.Seed, writer, op)
	p := OpPlan{Sync: r.Float64() < cfg.SyncRatio, Key: messageKey(writer, op), rates: cfg.Faults}
	picker := chatPicker{chats: cfg.LocalChats()}
	if cfg.Distribution == Zipf {
		picker.zipfS = cfg.ZipfS
	}
	p.Chat = picker.pick(r)
	p.Raced = r.Float64() < cfg.ConcurrentDuplicate
	p.DuplicateAfterOK = r.Float64() < cfg.DuplicateAfterOK
	p.ReuseKey = r.Float64() < cfg.ReuseKey
	if p.Raced {
		p.TwinFaults = drawFaults(r, cfg.Faults)
	}
	p.attempts = r
	return p
}

// AttemptFaults draws the faults of the next attempt, in attempt order.
func (p *OpPlan) AttemptFaults() sequencer.FaultPlan { return drawFaults(p.attempts, p.rates) }

// chatPicker chooses a chat index for an operation.
type chatPicker struct {
	chats int
	zipfS float64
}

func (p chatPicker) pick(r *rand.Rand) int {
	if p.zipfS > 1 {
		return int(rand.NewZipf(r, p.zipfS, 1, uint64(p.chats-1)).Uint64())
	}
	return r.IntN(p.chats)
}

func drawFaults(r *rand.Rand, f FaultRates) sequencer.FaultPlan {
	p := sequencer.FaultPlan{
		StaleIdempotencyRead: r.Float64() < f.StaleRead,
		CrashAfterAllocate:   r.Float64() < f.CrashAfterAllocate,
		CrashInPersist:       r.Float64() < f.CrashInPersist,
		CrashAfterPersist:    r.Float64() < f.CrashAfterPersist,
		PublishFails:         r.Float64() < f.PublishFail,
	}
	p.CrashInPersistCommitted = r.IntN(2) == 0
	return p
}

// ChatID names chat i with the default prefix.
func ChatID(i int) string { return chatID(DefaultChatPrefix, i) }

// DefaultChatPrefix starts every chat id of a run on a fresh store.
const DefaultChatPrefix = "chat-"

func chatID(prefix string, i int) string { return fmt.Sprintf("%s%04d", prefix, i) }

// SenderID names writer w's user; every writer is a member of every chat.
func SenderID(w int) string { return "user-" + strconv.Itoa(w) }

func messageKey(writer, op int) string {
	return "w" + strconv.Itoa(writer) + "-m" + strconv.Itoa(op)
}

// payloadHash is FNV-1a over content, computed in place (hash.Hash would
// copy the string on every persist).
func payloadHash(content string) string {
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for i := 0; i < len(content); i++ {
		h ^= uint64(content[i])
		h *= prime64
	}
	return strconv.FormatUint(h, 16)
}
