package gateway

import (
	"hash/fnv"
	"slices"
	"time"
)

// Variant is a deliberately broken gateway, one of BrokenVariants, which
// a delivery invariant must catch; "" is the gateway as designed.
type Variant string

const (
	// ForeignPush keeps chat memberships in a hash-bucketed index whose
	// look-up returns the bucket's members without checking the chat: a
	// message is pushed to the members of every chat that shares its
	// bucket. Any run of more than ForeignBuckets chats has such a pair,
	// so push_authorization fails on every seed.
	ForeignPush Variant = "gateway-foreign-push"
	// SlowDrop gives each device a queue of SlowDropQueue messages and,
	// when a device falls behind, drops the message that does not fit
	// instead of closing the device (ErrOverflow, 1013): the device stays
	// connected and is streamed what comes after, so the hole is silent.
	// Its gap sync fills it and its settle catches up, so
	// eventual_visibility passes; stream_continuity fails. A queue this
	// small overflows whenever the topic's consumer hands the gateway a
	// chat's messages faster than a device reads them: every run.
	SlowDrop Variant = "gateway-slow-drop"
	// HoldLast queues each message for a device only when the chat's
	// next one comes: a chat's newest message is never streamed. The
	// devices' gap syncs and their settle's catch-up bring it, and a
	// stream holding a message back skips none in the topic's order, so
	// eventual_visibility and stream_continuity pass;
	// stream_completeness fails.
	HoldLast Variant = "gateway-hold-last"
	// FirstDevice's fan-out stops at the first member with a connected
	// device ("found it"): a chat's other members are streamed nothing
	// and have its messages only by their catch-up syncs (on connect,
	// at their settle: they never see a gap). Every message still
	// reaches every member by its settled line, and what is streamed
	// skips and holds back nothing, so eventual_visibility,
	// stream_continuity and stream_completeness's rule from a chat's
	// first streamed push pass; its rule for a chat a connection never
	// streamed fails.
	FirstDevice Variant = "gateway-first-device"
	// StripContent pushes each message without its content (a frame
	// serializer that leaves the field out): members are shown empty
	// messages at the right sequences with the right ids, so every
	// delivery invariant that compares (seq, message_id) passes;
	// identical_order's content comparison fails.
	StripContent Variant = "gateway-strip-content"
	// LateStart streams a device nothing for LateStartDelay from the
	// first message it would have streamed it (a gateway whose
	// subscription lags the handshake): what is sent meanwhile reaches
	// the device only by its catch-up syncs, and once streaming begins
	// nothing is held back or skipped. Counted from the first message,
	// not the connect, so that a run slow to start sending (the race
	// detector) still sends into the window. When the writers begin at
	// once, every invariant passes under a second's allowance
	// (stream_start within-1s); chatseq's gateway and HTTP API promise
	// at-connect, and stream_completeness fails it.
	LateStart Variant = "gateway-late-start"
)

// LateStartDelay is how long LateStart streams a new device nothing:
// under the second stream_start within-1s allows.
const LateStartDelay = 700 * time.Millisecond

// ForeignBuckets is how many buckets ForeignPush's index has.
const ForeignBuckets = 16

// SlowDropQueue is the per-device queue of SlowDrop.
const SlowDropQueue = 2

// BrokenVariant is a broken gateway and the invariant that catches it.
type BrokenVariant struct {
	Variant     Variant
	Description string
	CaughtBy    string
	// Receivers is how many receiving members per chat a bench run
	// needs for the flaw to show (bench --receivers).
	Receivers int
}

// BrokenVariants lists the broken gateways.
var BrokenVariants = []BrokenVariant{
	{ForeignPush, "the push gateway's membership index is hash-bucketed and its look-up does not check the chat: a message reaches the members of every chat in its bucket", "push_authorization", 4},
	{SlowDrop, "the push gateway drops a message for a device that falls behind (a queue of 2) instead of closing the device to reconnect and catch up: the connection stays open with a hole", "stream_continuity", 4},
	{HoldLast, "the push gateway holds each chat's newest message back from the stream until the next one comes: the last message of every chat reaches its members only by their catch-up syncs", "stream_completeness", 2},
	{FirstDevice, "the push gateway's fan-out stops at the first member with a connected device: the chat's other members are streamed nothing and have its messages only by their catch-up syncs", "stream_completeness", 2},
	{StripContent, "the push gateway pushes each message without its content (its frame leaves the field out): members see empty messages at the right sequences", "identical_order", 2},
	{LateStart, "the push gateway begins streaming a device 0.7 s after the first message it would have streamed it (its subscription lags the handshake): what is sent meanwhile comes only by catch-up, though chatseq's gateway promises a stream from the connect on (stream_start at-connect)", "stream_completeness", 2},
}

// IsVariant reports whether name is a broken gateway.
func IsVariant(name string) bool {
	return slices.ContainsFunc(BrokenVariants, func(b BrokenVariant) bool { return string(b.Variant) == name })
}

// bucketOf is chat's bucket in ForeignPush's index.
func bucketOf(chat string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(chat))
	return h.Sum32() % ForeignBuckets
}

// notStreamingYet is LateStart's gate: the first message routed to d
// starts its LateStartDelay, and until that passes nothing is queued.
func (d *Device) notStreamingYet() bool {
	now := time.Now().UnixNano()
	d.lateStart.CompareAndSwap(0, now+int64(LateStartDelay))
	return now < d.lateStart.Load()
}
