package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/target"
)

// A run in which the target acknowledged no persist judged nothing: a
// check without a violation is unknown there, the first warning and the
// verdict line say why; a violation stands, and a run that acknowledged
// a persist keeps its pass. Without JudgedRun a run of no operation
// passes.
func TestARunThatAcknowledgedNothingIsNotAPass(t *testing.T) {
	valid, invalid := true, false
	pass := checker.Report{Valid: &valid, Invariants: []checker.Result{{Name: checker.NameSequenceUniqueness, Status: checker.Pass}}}
	fail := checker.Report{Valid: &invalid, Invariants: []checker.Result{{Name: checker.NameSequenceUniqueness, Status: checker.Fail}}}
	cases := []struct {
		name   string
		counts bench.Counts
		check  checker.Report
		want   string // the verdict
		why    string // in the first warning and the verdict line
	}{
		{"no operation", bench.Counts{}, pass, "UNKNOWN", "the writers completed no operation"},
		{"every persist refused", bench.Counts{Operations: 5, Persists: 5, Fail: 3, Info: 2}, pass, "UNKNOWN", "5 operations completed, 3 failed, 2 with an unknown outcome"},
		{"a violation without an ack", bench.Counts{Operations: 2, Persists: 2, Info: 2}, fail, "FAIL", ""},
		{"one persist acknowledged", bench.Counts{Operations: 1, Persists: 1, OK: 1, PersistOK: 1}, pass, "PASS", ""},
	}
	for _, c := range cases {
		res := &bench.Result{Config: bench.DefaultConfig(), Counts: c.counts, Elapsed: time.Millisecond}
		rep := JudgedRun(res, c.check)
		if got := Verdict(rep); got != c.want {
			t.Errorf("%s: verdict %s, want %s", c.name, got, c.want)
		}
		var text bytes.Buffer
		if err := writeText(&text, FromBench(res, "memory", rep), 400); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(text.String()), "\n")
		last := lines[len(lines)-1]
		if c.why == "" {
			if len(rep.Warnings) != len(c.check.Warnings) || strings.Contains(last, "no persist was acknowledged") {
				t.Errorf("%s: warned %q, verdict line %q", c.name, rep.Warnings, last)
			}
			continue
		}
		if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], c.why) || !strings.Contains(last, "verdict: UNKNOWN (no persist was acknowledged: "+c.why) {
			t.Errorf("%s: warnings %q, verdict line %q: want both to say %q", c.name, rep.Warnings, last, c.why)
		}
	}
	if pass.Valid != &valid || len(pass.Warnings) != 0 {
		t.Fatal("JudgedRun changed the report it was given")
	}
}

// report.html says a run was interrupted, and that a run that
// acknowledged nothing judged nothing, where the text report does: its
// title and header read PASS for an interrupted run (exit 6).
func TestTheHTMLPageSaysInterruptedAndNothingAcknowledged(t *testing.T) {
	saved := *healthyRun(t).saved
	var plain bytes.Buffer
	if err := saved.WriteHTML(&plain, fixtureGenerated); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "Interrupted") || strings.Contains(plain.String(), "no persist was acknowledged") {
		t.Fatal("a whole run's page says it was interrupted or acknowledged nothing")
	}
	saved.Results.Run.Interrupted = true
	saved.Results.Run.NothingAcknowledged = "no persist was acknowledged: the writers completed no operation in 0.00s"
	var page bytes.Buffer
	if err := saved.WriteHTML(&page, fixtureGenerated); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{"(interrupted)</title>", "Interrupted: the writers stopped early (Ctrl-C)", "no persist was acknowledged: the writers completed no operation in 0.00s: a pass would judge nothing"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A variant_on window that opened after the writers stopped says so
// where the report names it, and results.json's timed_faults name the
// variant of each window.
func TestAVariantWindowThatNeverOpenedSaysSo(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Timed = []target.TimedFault{
		{Kind: target.VariantOn, At: 0, For: time.Second, Variant: "ack-before-persist"},
		{Kind: target.VariantOn, At: 100 * time.Hour, For: time.Second, Variant: "racy-counter"},
	}
	b := FromBench(&bench.Result{Config: cfg, Elapsed: 550 * time.Millisecond}, "memory", checker.Report{})
	w := b.Run.VariantWindows
	if len(w) != 2 || strings.Contains(w[0], "never opened") || !strings.HasSuffix(w[1], "racy-counter from 100h0m0s for 1s (never opened: the writers stopped at 0.6s)") {
		t.Fatalf("variant windows %q", w)
	}
	fw := faultWindows(cfg.Timed)
	if len(fw) != 2 || fw[0].Variant != "ack-before-persist" || fw[1].Variant != "racy-counter" {
		t.Fatalf("timed faults %+v: want each window's variant", fw)
	}
}

// A run whose devices received messages, every one by catch-up sync (a
// push channel that streamed nothing), is no pass of the delivery plane:
// unknown, the first warning and the verdict line saying why. It passed
// (an outside tester's push channel that never pushed). One message
// streamed keeps the pass; a violation stands.
func TestARunWhosePushChannelStreamedNothingIsNotAPass(t *testing.T) {
	valid, invalid := true, false
	pass := checker.Report{Valid: &valid, Invariants: []checker.Result{{Name: checker.NameEventualVisibility, Status: checker.Pass}}}
	fail := checker.Report{Valid: &invalid, Invariants: []checker.Result{{Name: checker.NameEventualVisibility, Status: checker.Fail}}}
	for _, c := range []struct {
		name     string
		received bench.ReceiverCounts
		check    checker.Report
		want     string
	}{
		{"nothing streamed", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 40}, pass, "UNKNOWN"},
		{"one streamed", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 39}, pass, "PASS"},
		{"nothing streamed, a violation", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 40}, fail, "FAIL"},
		{"nothing received", bench.ReceiverCounts{Devices: 4}, pass, "PASS"},
	} {
		cfg := bench.DefaultConfig()
		cfg.Receivers = 2
		res := &bench.Result{Config: cfg, Counts: bench.Counts{Operations: 1, Persists: 1, OK: 1, PersistOK: 1}, Receivers: c.received, Elapsed: time.Second}
		rep := JudgedRun(res, c.check)
		if got := Verdict(rep); got != c.want {
			t.Errorf("%s: verdict %s, want %s", c.name, got, c.want)
		}
		if c.want != "UNKNOWN" {
			continue
		}
		var text bytes.Buffer
		if err := writeText(&text, FromBench(res, "memory", rep), 400); err != nil {
			t.Fatal(err)
		}
		const why = "the push channel streamed nothing: all 40 deliveries to 4 devices came by catch-up sync"
		if !strings.Contains(rep.Warnings[0], why) || !strings.Contains(text.String(), "verdict: UNKNOWN ("+why) {
			t.Errorf("%s: warnings %q, report %s: want both to say why", c.name, rep.Warnings, text.String())
		}
	}
}

// A run whose push channel ended the devices' connections (one frame a
// connection, the rest caught up by sync on the next), so that
// stream_completeness judged no live stream, is no pass of the delivery
// plane: unknown, saying why. It passed (an outside tester's channel
// closing every connection after its first frame). Without connections
// the service ended, or with the invariant judged, the verdict stands.
func TestARunWhoseServiceEndedEveryJudgedStreamIsNotAPass(t *testing.T) {
	valid := true
	na := checker.NotApplicable{Name: checker.NameStreamCompleteness, Reason: "no message was acknowledged that was first sent after a live connection began streaming its chat"}
	unjudged := checker.Report{Valid: &valid, NotApplicable: []checker.NotApplicable{na}}
	judged := checker.Report{Valid: &valid, Invariants: []checker.Result{{Name: checker.NameStreamCompleteness, Status: checker.Pass}}}
	for _, c := range []struct {
		name     string
		received bench.ReceiverCounts
		check    checker.Report
		want     string
	}{
		{"ended, no stream judged", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 30, Ended: 12}, unjudged, "UNKNOWN"},
		{"ended, streams judged", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 30, Ended: 12}, judged, "PASS"},
		{"none ended, no stream judged", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 30}, unjudged, "PASS"},
		// chatseq ended them itself: a server it killed, devices it slowed
		// until a correct service closed them.
		{"ended by kills", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 30, Ended: 12}, unjudged, "PASS"},
		{"ended by slow receivers", bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 30, Ended: 12}, unjudged, "PASS"},
	} {
		cfg := bench.DefaultConfig()
		cfg.Receivers = 2
		res := &bench.Result{Config: cfg, Counts: bench.Counts{Operations: 1, Persists: 1, OK: 1, PersistOK: 1}, Receivers: c.received, Elapsed: time.Second}
		switch c.name {
		case "ended by kills":
			res.ServerKills = 2
		case "ended by slow receivers":
			res.Config.Timed = []target.TimedFault{{Kind: target.SlowReceivers, At: time.Second, For: time.Second}}
		}
		rep := JudgedRun(res, c.check)
		if got := Verdict(rep); got != c.want {
			t.Errorf("%s: verdict %s, want %s", c.name, got, c.want)
		}
		if c.want == "UNKNOWN" && !strings.Contains(rep.Warnings[0], "the push channel ended 12 of the devices' connections") {
			t.Errorf("%s: warnings %q: want the first to say why", c.name, rep.Warnings)
		}
		// results.json says so too, as it says nothing_streamed.
		if got := FromBench(res, "", rep).Run.NoStreamJudged; (got != "") != (c.want == "UNKNOWN") {
			t.Errorf("%s: no_stream_judged %q", c.name, got)
		}
	}
}

// A run whose syncs were all refused judged no read: a check without a
// violation is unknown, and the verdict line says why. A service that
// answered every sync 403 to its members, or 503, passed with
// sync_completeness n/a (an outside tester's). One answered sync keeps
// the pass; the persists line no longer counts failed syncs as failed
// persists, and the syncs line shows them.
func TestARunWhoseSyncsWereAllRefusedIsNotAPass(t *testing.T) {
	valid := true
	pass := checker.Report{Valid: &valid, Invariants: []checker.Result{{Name: checker.NameSequenceUniqueness, Status: checker.Pass}}}
	acked := bench.Counts{Operations: 15, Persists: 10, Syncs: 5, OK: 10, PersistOK: 10, Fail: 4, Info: 1, SyncFail: 4, SyncInfo: 1}
	res := &bench.Result{Config: bench.DefaultConfig(), Counts: acked, Elapsed: time.Second}
	rep := JudgedRun(res, pass)
	if got := Verdict(rep); got != "UNKNOWN" {
		t.Fatalf("every sync refused: verdict %s, want UNKNOWN", got)
	}
	var text bytes.Buffer
	if err := writeText(&text, FromBench(res, "memory", rep), 400); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{"(no sync was answered: 5 sent, 4 failed, 1 with an unknown outcome)", "ok 10 (dedup 0), fail 0, info 0", "ok 0, fail 4, info 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	acked.OK, acked.SyncOK, acked.SyncFail, acked.Fail = 11, 1, 3, 3
	res.Counts = acked
	if got := Verdict(JudgedRun(res, pass)); got != "PASS" {
		t.Errorf("one sync answered: verdict %s, want PASS", got)
	}
}
