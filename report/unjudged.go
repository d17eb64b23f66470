package report

import (
	"fmt"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/target"
)

// JudgedRun is a run's check as the run's verdict. A run in which the
// target acknowledged no persist (a duration shorter than one operation,
// a service that answers nothing or refuses everything) has shown
// nothing of sequencing, idempotency or persistence: its invariants pass
// on no evidence, so where the check found no violation its verdict is
// unknown, and the first warning says why (Unjudged); so is a run whose
// syncs were all refused (NothingRead), one whose push channel streamed nothing, every delivery a catch-up sync (an
// outside tester's channel that never pushed passed), or whose service
// ended the connections before a live stream could be judged. A
// violation stands. A run whose final state could not be read back is
// judged on its operations (the history is cut short), and the first
// warning says why.
func JudgedRun(res *bench.Result, rep checker.Report) checker.Report {
	if res.FinalStateUnread != "" {
		// The check already finds the history cut short; this says why.
		rep.Warnings = append([]string{"the final state could not be read back (" + res.FinalStateUnread + "): the history ends before it, so every invariant it decides is unknown unless the operations alone break it"}, rep.Warnings...)
	}
	why := Unjudged(res, rep)
	if why == "" || rep.Valid == nil || !*rep.Valid {
		return rep
	}
	rep.Valid = nil
	rep.Warnings = append([]string{why + ", so the verdict is unknown"}, rep.Warnings...)
	return rep
}

// NoStreamJudged says how the delivery plane went when the service ended
// the devices' connections and stream_completeness judged no live
// stream, "" otherwise: a push channel that closed every connection after
// its first frame (the devices catching up the rest by sync on the next)
// left no connection open, with messages sent, to its device's settle,
// and passed (an outside tester's).
//
// Only where chatseq itself ended no connection: a server it killed, or
// receivers it slowed until a correct service closed them (1013), end
// connections of a correct service, and a run whose last ones began
// after the writers stopped would be unknown by the luck of the timing.
func NoStreamJudged(res *bench.Result, rep checker.Report) string {
	r := res.Receivers
	if res.Config.Receivers == 0 || r.Ended == 0 || r.Deliveries == 0 || res.ServerKills > 0 || slowsReceivers(res.Config) {
		return ""
	}
	for _, na := range rep.NotApplicable {
		if na.Name == checker.NameStreamCompleteness {
			return fmt.Sprintf("the push channel ended %d of the devices' connections, and no connection open to its device's settle saw a message sent, so stream_completeness judged no live stream (%s)", r.Ended, na.Reason)
		}
	}
	return ""
}

// Unjudged says why a run judged nothing of its target or of its push
// channel, as JudgedRun makes its pass unknown for, "" when it did: no
// persist acknowledged, a push channel that streamed nothing, or one
// whose connections the service ended before any live stream could be
// judged. chatseq run's expect: pass takes none of these for a pass.
func Unjudged(res *bench.Result, rep checker.Report) string {
	if why := NothingAcknowledged(res); why != "" {
		return why + ": a pass would judge nothing of the target"
	}
	if why := NothingRead(res); why != "" {
		return why + ": a pass would judge no read"
	}
	if why := NothingStreamed(res); why != "" {
		return why + ": a pass would judge no push"
	}
	if why := NoStreamJudged(res, rep); why != "" {
		return why + ": a pass would judge no push"
	}
	return ""
}

// NothingRead says how the reads went when the run's syncs (the
// writers', or its readers') were sent and none was answered, "" when
// some were or none was sent: a service refusing every sync (a 403 to
// members, a 503) left sync_completeness and catch_up_completeness n/a,
// and the run passed (an outside tester's).
func NothingRead(res *bench.Result) string {
	c, r := res.Counts, res.Readers
	switch {
	case c.Syncs > 0 && c.SyncOK == 0:
		return fmt.Sprintf("no sync was answered: %d sent, %d failed, %d with an unknown outcome", c.Syncs, c.SyncFail, c.SyncInfo)
	case r.Syncs > 0 && r.OK == 0:
		return fmt.Sprintf("no reader's sync was answered: %d sent, %d failed or unknown", r.Syncs, r.Errors)
	}
	return ""
}

// NothingStreamed says how the delivery plane went when the run's devices
// received messages and the push channel streamed none, "" otherwise.
func NothingStreamed(res *bench.Result) string {
	r := res.Receivers
	if res.Config.Receivers == 0 || r.Deliveries == 0 || r.CaughtUp < r.Deliveries {
		return ""
	}
	return fmt.Sprintf("the push channel streamed nothing: all %d deliveries to %d devices came by catch-up sync", r.Deliveries, r.Devices)
}

// NothingAcknowledged says how a run went in which the target
// acknowledged no persist, "" when it acknowledged one.
func NothingAcknowledged(res *bench.Result) string {
	c := res.Counts
	switch {
	case c.PersistOK > 0:
		return ""
	case c.Operations == 0:
		return fmt.Sprintf("no persist was acknowledged: the writers completed no operation in %.2fs", res.Elapsed.Seconds())
	}
	return fmt.Sprintf("no persist was acknowledged: %d operations completed, %d failed, %d with an unknown outcome", c.Operations, c.Fail, c.Info)
}

// slowsReceivers says cfg schedules slow_receivers, whose paused devices
// a correct service closes when their queue overflows.
func slowsReceivers(cfg bench.Config) bool {
	for _, f := range cfg.Timed {
		if f.Kind == target.SlowReceivers {
			return true
		}
	}
	return false
}
