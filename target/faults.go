package target

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/chatseq/chatseq/sequencer"
)

// Timed fault kinds.
const (
	// KafkaOutage: every publish in the window fails.
	KafkaOutage = "kafka-outage"
	// StoreLatency: every store call in the window is delayed by Latency.
	StoreLatency = "store-latency"
	// StoreStall: every store call in the window blocks until it ends.
	StoreStall = "store-stall"
	// DeleteCounter: at At the counter of chat Chat is deleted (an
	// operator's mistake; ADR-004's SEV-2).
	DeleteCounter = "delete-counter"
	// Store errors in a window (ADR-004's core only; §10's "DynamoDB
	// unavailable"): StoreThrottle refuses every store call (nothing
	// applied); StoreInternalError fails every call with a 500 (a
	// transaction is applied first on a fixed coin per write; a counter
	// ADD never is); TxnCanceledOther cancels every transaction for a
	// reason other than its condition (nothing applied).
	StoreThrottle      = "store-throttle"
	StoreInternalError = "store-internal-error"
	TxnCanceledOther   = "txn-canceled-other"
	// VariantOn: through the window ADR-004's core runs the broken
	// variant Variant (sequencer.Variant.CheckSwitchable), so that a
	// long correct run goes wrong at a known time.
	VariantOn = "variant-on"
	// DropConnections: at At every receiver's connection is dropped, and
	// each device stays offline For before it
	// reconnects and catches up (bench --receivers).
	DropConnections = "drop-connections"
	// SlowReceivers: through the window every receiver stops reading its
	// connection and syncing (a stalled app): what the push channel
	// sends it waits in its queues, up to their bounds.
	SlowReceivers = "slow-receivers"
)

// ReceiverKinds are the timed faults that strike bench's receivers.
func ReceiverKinds() []string { return []string{DropConnections, SlowReceivers} }

// KillServer: at At the target's server process is killed (SIGKILL) and
// restarted, or a user's nemesis command is run (the http target's
// --serve and --nemesis-cmd), as Jepsen's process nemesis does.
const KillServer = "kill-server"

// storeErrorKinds are the timed faults that fail store calls.
var storeErrorKinds = []string{StoreThrottle, StoreInternalError, TxnCanceledOther}

// IsStoreError reports whether kind fails store calls (ADR-004's core
// only).
func IsStoreError(kind string) bool { return slices.Contains(storeErrorKinds, kind) }

// CoreOnly reports whether only ADR-004's core carries out kind: the
// store errors and variant windows.
func CoreOnly(kind string) bool { return IsStoreError(kind) || kind == VariantOn }

// TimedKinds lists every timed fault kind.
func TimedKinds() []string {
	return append([]string{KafkaOutage, StoreLatency, StoreStall, DeleteCounter, KillServer, VariantOn, DropConnections, SlowReceivers}, storeErrorKinds...)
}

// TimedFault is a fault on the run's clock.
type TimedFault struct {
	Kind    string
	At      time.Duration // from the start of the writers
	For     time.Duration // window length (outage, latency, stall)
	Latency time.Duration // StoreLatency only
	Chat    int           // DeleteCounter only: the chat's index
	Variant string        // VariantOn only: the variant switched on
}

// Validate checks f against a run of the given number of chats.
func (f TimedFault) Validate(chats int) error {
	switch f.Kind {
	case KafkaOutage, StoreStall, StoreThrottle, StoreInternalError, TxnCanceledOther, SlowReceivers:
		if f.For <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration", f.Kind, f.At)
		}
	case StoreLatency:
		if f.For <= 0 || f.Latency <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration and latency", f.Kind, f.At)
		}
	case VariantOn:
		if f.For <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration", f.Kind, f.At)
		}
		if err := sequencer.Variant(f.Variant).CheckSwitchable(); err != nil {
			return fmt.Errorf("%s at %s: %w", f.Kind, f.At, err)
		}
	case KillServer:
	case DropConnections:
		if f.For <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration (how long the devices stay offline)", f.Kind, f.At)
		}
	case DeleteCounter:
		if f.Chat < 0 || f.Chat >= chats {
			return fmt.Errorf("%s names chat %d, but the run has chats 0..%d", f.Kind, f.Chat, chats-1)
		}
	default:
		return fmt.Errorf("unknown timed fault %q (known: %s)", f.Kind, strings.Join(TimedKinds(), ", "))
	}
	if f.At < 0 {
		return fmt.Errorf("%s: at must not be negative, got %s", f.Kind, f.At)
	}
	return nil
}

// MaxFaultWithoutDuration bounds a stall's end and a store latency in a run
// bounded by --ops alone, which has no end to measure them against: a typo
// of 1h for 1s, or a latency of 2562047h, would otherwise hold the run for
// as long.
const MaxFaultWithoutDuration = time.Hour

// OutlastsRun says why f cannot be carried out within a run of the given
// duration (0: bounded by --ops alone), or returns "": a window whose end
// overflows the clock, a fault that starts after the run is over, a stall
// still on when the writers stop (every call in flight would wait for its
// end), or a store latency longer than the run.
func (f TimedFault) OutlastsRun(duration time.Duration) string {
	name := f.ScheduleName()
	if problem := f.EndsBeyondClock(); problem != "" {
		return problem
	}
	end, bound, bounded := f.At+f.For, duration, "the "+duration.String()+" run"
	if duration <= 0 {
		bound, bounded = MaxFaultWithoutDuration, "the "+MaxFaultWithoutDuration.String()+" a run without --duration allows"
	} else if f.At >= duration {
		return fmt.Sprintf("%s at %s starts when the %s run is over: it would never happen", name, f.At, duration)
	}
	switch {
	case f.Kind == StoreStall && end > bound:
		return fmt.Sprintf("%s from %s to %s outlasts %s: the calls in flight when the writers stop would wait for its end", name, f.At, end, bounded)
	case f.Kind == StoreLatency && f.Latency > bound:
		return fmt.Sprintf("%s at %s delays each store call by %s, longer than %s", name, f.At, f.Latency, bounded)
	}
	return ""
}

// LastConnectionOpen is how long before a --duration run's writers stop
// chatseq's own strikes at the receivers' connections (a drop, a server
// kill) must be over: stream_completeness owes a device's last connection
// that streamed nothing of a chat only the messages first sent a second
// after it opened and acknowledged a second before its device settled, so
// a last connection opened later is judged on nothing. A push channel
// streaming each chat to its first device only passed under drops every
// half second (an outside tester's).
const LastConnectionOpen = 2 * time.Second

// LeavesNoStream says, unless "", why f, in a run of the given duration
// with receivers, ends the devices' connections too late for their last
// ones to be judged (LastConnectionOpen): a drop or a server kill ending
// within it. A run bounded by --ops alone has no end to measure against.
func (f TimedFault) LeavesNoStream(duration time.Duration) string {
	if duration <= 0 || f.Kind != DropConnections && f.Kind != KillServer {
		return ""
	}
	if end := f.At + f.For; end > duration-LastConnectionOpen {
		return fmt.Sprintf("%s at %s ends the receivers' connections less than %s before the %s run's end: their last connections would be too short for stream_completeness to judge (schedule it by %s)",
			f.ScheduleName(), f.At, LastConnectionOpen, duration, max(duration-LastConnectionOpen-f.For, 0))
	}
	return ""
}

// EndsBeyondClock says, unless "", that f's window ends past the largest
// duration: no run's clock reaches its end.
func (f TimedFault) EndsBeyondClock() string {
	if f.For > 0 && f.At > math.MaxInt64-f.For {
		return fmt.Sprintf("%s at %s for %s ends beyond the clock's range", f.ScheduleName(), f.At, f.For)
	}
	return ""
}

// VariantProblem says why a variant_on window f cannot do what it says
// in a core of the given strategy running base outside its windows, or
// returns "" (also for any other fault): a variant the strategy lacks
// would run the correct core and look like a pass (as --broken is
// refused), and base itself changes nothing.
func (f TimedFault) VariantProblem(strategy sequencer.Strategy, base sequencer.Variant) string {
	if f.Kind != VariantOn {
		return ""
	}
	v := sequencer.Variant(f.Variant)
	if err := v.CheckStrategy(strategy); err != nil {
		return fmt.Sprintf("%s at %s with strategy %s: %v", f.ScheduleName(), f.At, strategy, err)
	}
	if v == base {
		return fmt.Sprintf("%s %s at %s changes nothing: the core runs %s throughout (broken or variant)", f.ScheduleName(), f.Variant, f.At, base)
	}
	return ""
}

// VariantOverlap is why window i of timed cannot be kept, "" when it
// can: a variant_on window that overlaps an earlier one. The core runs
// one variant at a time, so the later window's variant would never run
// while both were open, and a check that then passed would read as the
// checker missing that variant's bug.
func VariantOverlap(timed []TimedFault, i int) string {
	f := timed[i]
	if f.Kind != VariantOn {
		return ""
	}
	for _, g := range timed[:i] {
		if g.Kind == VariantOn && f.At < g.At+g.For && g.At < f.At+f.For {
			return fmt.Sprintf("%s %s from %s for %s overlaps %s from %s for %s: the core runs one variant at a time; give windows that do not overlap", f.ScheduleName(), f.Variant, f.At, f.For, g.Variant, g.At, g.For)
		}
	}
	return ""
}

// ScheduleName is the fault's name in the schedule language of scenario
// files and --schedule: its kind with underscores (store_stall).
func (f TimedFault) ScheduleName() string { return strings.ReplaceAll(f.Kind, "-", "_") }

// VariantWindows are the variant_on windows of timed, as a report's and a
// history's header name them ("racy-counter from 30s for 10m0s"): a run
// that goes wrong inside one is the variant failing, not the correct core.
func VariantWindows(timed []TimedFault) []string {
	var out []string
	for _, f := range timed {
		if f.Kind == VariantOn {
			out = append(out, fmt.Sprintf("%s from %s for %s", f.Variant, f.At, f.For))
		}
	}
	return out
}

// Active reports whether the run is inside f's window at elapsed.
func (f TimedFault) Active(elapsed time.Duration) bool {
	return elapsed >= f.At && elapsed < f.At+f.For
}
