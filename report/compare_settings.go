package report

import (
	"fmt"
	"slices"
	"strings"
)

// SettingDiff is one setting two compared runs do not share. Refused
// differences change the load or the faults (a closed loop against an open
// one, other fault rates): their figures differ whatever the code does, so
// compare refuses them unless told to go on. The others (the target, the
// duration) are warned about: comparing one design with another is what
// compare of two single runs is for.
type SettingDiff struct {
	Setting string `json:"setting"`
	A       string `json:"a"`
	B       string `json:"b"`
	Refused bool   `json:"refused"`
}

func (d SettingDiff) String() string { return fmt.Sprintf("%s: %s in A, %s in B", d.Setting, d.A, d.B) }

// SettingsDiffer lists the settings a and b do not share, refused ones
// first.
func SettingsDiffer(a, b Results) []SettingDiff {
	var out []SettingDiff
	check := func(refused bool, setting string, va, vb any) {
		sa, sb := fmt.Sprint(va), fmt.Sprint(vb)
		if sa != sb {
			out = append(out, SettingDiff{Setting: setting, A: sa, B: sb, Refused: refused})
		}
	}
	ca, cb := a.Config, b.Config
	check(true, "loop", a.Run.Loop, b.Run.Loop)
	check(true, "writers", ca.Writers, cb.Writers)
	check(true, "chats", ca.Chats, cb.Chats)
	check(true, "distribution", distribution(ca), distribution(cb))
	check(true, "fault rates", faultRatesText(ca.FaultRates), faultRatesText(cb.FaultRates))
	check(true, "timed faults", timedFaultsText(a.Faults), timedFaultsText(b.Faults))
	check(true, "duplicates", duplicatesText(ca), duplicatesText(cb))
	check(true, "syncs", fmt.Sprintf("ratio %g, page %d, %d readers", ca.SyncRatio, ca.SyncLimit, ca.Readers),
		fmt.Sprintf("ratio %g, page %d, %d readers", cb.SyncRatio, cb.SyncLimit, cb.Readers))
	check(true, "max attempts", ca.MaxAttempts, cb.MaxAttempts)
	check(true, "initial counter", ca.InitialCounter, cb.InitialCounter)
	check(true, "strategy", ca.Strategy, cb.Strategy)
	check(true, "variant", a.Run.Variant, b.Run.Variant)
	check(true, "republish on replay", ca.RepublishOnReplay, cb.RepublishOnReplay)
	check(true, "kafka", kafkaMode(a.Run.Kafka), kafkaMode(b.Run.Kafka))
	check(true, "partitions", ca.Partitions, cb.Partitions)
	check(true, "shard", ca.Shard, cb.Shard)
	check(false, "target", a.Run.Target, b.Run.Target)
	check(false, "store", a.Run.Store, b.Run.Store)
	check(false, "run length", runLength(ca), runLength(cb))
	// Samples of other lengths: an interval's percentiles of ten times the
	// operations are not the same statistic.
	check(false, "interval", fmt.Sprintf("%gs", a.IntervalS), fmt.Sprintf("%gs", b.IntervalS))
	slices.SortStableFunc(out, func(x, y SettingDiff) int {
		switch {
		case x.Refused == y.Refused:
			return 0
		case x.Refused:
			return -1
		}
		return 1
	})
	return out
}

// PoolDiffers lists the settings in which other differs from first, two
// runs to be pooled on one side of a comparison: they must be runs of one
// command, so every setting counts but the run's length (the samples are
// per interval, of one length).
func PoolDiffers(first, other Results) []SettingDiff {
	var out []SettingDiff
	for _, d := range SettingsDiffer(first, other) {
		if d.Setting != "run length" {
			out = append(out, d)
		}
	}
	return out
}

// RefusedSettings are the differences compare refuses.
func RefusedSettings(ds []SettingDiff) []SettingDiff {
	var out []SettingDiff
	for _, d := range ds {
		if d.Refused {
			out = append(out, d)
		}
	}
	return out
}

func distribution(c RunConfig) string {
	if c.Distribution == "zipf" {
		return fmt.Sprintf("zipf (s %g)", c.ZipfS)
	}
	return c.Distribution
}

func duplicatesText(c RunConfig) string {
	return fmt.Sprintf("after ok %g, concurrent %g, key reuse %g, key across chats %g, key across senders %g, odd keys %g, outsider sends %g, outsider syncs %g, forged senders %g", c.DuplicateAfterOK, c.ConcurrentDuplicate, c.ReuseKey, c.KeyAcrossChats, c.KeyAcrossSenders, c.OddKeys, c.OutsiderSends, c.OutsiderSyncs, c.ForgedSenders)
}

func runLength(c RunConfig) string {
	switch {
	case c.Ops > 0 && c.Duration > 0:
		return fmt.Sprintf("%gs or %d operations", c.Duration, c.Ops)
	case c.Ops > 0:
		return fmt.Sprintf("%d operations", c.Ops)
	}
	return fmt.Sprintf("%gs", c.Duration)
}

// kafkaMode is off or on: the broker's address differs from run to run.
func kafkaMode(k string) string {
	if k == "off" || k == "" {
		return "off"
	}
	return "on"
}

func timedFaultsText(fs []FaultWindow) string {
	if len(fs) == 0 {
		return "none"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%s %g-%gs", f.Kind, f.Start, f.End)
		if f.LatencyMs > 0 {
			parts[i] += fmt.Sprintf(" +%gms", f.LatencyMs)
		}
		if f.ChatIndex != nil {
			parts[i] += fmt.Sprintf(" chat %d", *f.ChatIndex)
		}
	}
	return strings.Join(parts, ", ")
}
