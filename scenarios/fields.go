package scenarios

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/targets"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// topFields are the keys of a scenario. docs/scenarios.md documents each.
func (d *decoder) topFields() map[string]field {
	sc := d.sc
	prob := func(dst *float64) field {
		return func(p string, v *yaml.Node) {
			if x, ok := d.probability(v, p); ok {
				*dst = x
			}
		}
	}
	count := func(dst *int, lo, hi int64) field {
		return func(p string, v *yaml.Node) {
			if x, ok := d.integer(v, p, lo, hi); ok {
				*dst = int(x)
			}
		}
	}
	// positive is a duration that must be above 0; hint says what leaving
	// the key out does instead.
	positive := func(dst *time.Duration, name, hint string) field {
		return func(p string, v *yaml.Node) {
			if x, ok := d.duration(v, p); ok {
				if x <= 0 {
					d.errorf(v, "%s: must be positive%s", name, hint)
					return
				}
				*dst = x
			}
		}
	}
	return map[string]field{
		"name": func(p string, v *yaml.Node) {
			if s, ok := d.str(v, p); ok {
				if !validName.MatchString(s) {
					d.errorf(v, "name: %q must be 1-100 letters, digits, '.', '_' or '-' (it names the history file)", short(s))
					return
				}
				sc.Name = s
			}
		},
		"description": func(p string, v *yaml.Node) {
			if s, ok := d.str(v, p); ok {
				sc.Description = strings.TrimSpace(s)
			}
		},
		"store": func(p string, v *yaml.Node) {
			if s, ok := d.enum(v, p, storeopen.Memory, storeopen.DynamoDB, storeopen.DynamoDBLocal); ok {
				sc.Target = s
			}
		},
		"target": func(p string, v *yaml.Node) {
			if s, ok := d.str(v, p); ok {
				if !targets.Known(s) {
					d.errorf(v, "target: unknown target %q%s", short(s), suggestOrList(s, targets.Names()))
					return
				}
				sc.Target = s
			}
		},
		"strategy": func(p string, v *yaml.Node) {
			if s, ok := d.enum(v, p, string(sequencer.TwoPhase), string(sequencer.Optimistic)); ok {
				sc.Strategy = sequencer.Strategy(s)
			}
		},
		"contract": func(p string, v *yaml.Node) { d.mapping(v, p, d.contractFields()) },
		"kafka": func(p string, v *yaml.Node) {
			if s, ok := d.enum(v, p, "embedded", "off"); ok {
				sc.KafkaOff = s == "off"
			}
		},
		"writers":                count(&sc.Writers, 1, bench.MaxWriters),
		"chats":                  count(&sc.Chats, 1, bench.MaxChats),
		"ops":                    count(&sc.Ops, 1, maxOps),
		"max_attempts":           count(&sc.MaxAttempts, 1, 1000),
		"sync_limit":             count(&sc.SyncLimit, 1, 100_000),
		"readers":                count(&sc.Readers, 0, bench.MaxReaders),
		"receivers":              count(&sc.Receivers, 0, bench.MaxReceivers),
		"drop_connections_every": positive(&sc.DropConnectionsEvery, "drop_connections_every", "; leave it out to keep the connections"),
		"drop_connections_for":   positive(&sc.DropConnectionsFor, "drop_connections_for", "; leave it out to reconnect at once"),
		"reader_poll": func(p string, v *yaml.Node) {
			if x, ok := d.duration(v, p); ok {
				sc.ReaderPoll = x
			}
		},
		"distribution": func(p string, v *yaml.Node) {
			if s, ok := d.enum(v, p, bench.Uniform, bench.Zipf); ok {
				sc.Distribution = s
			}
		},
		"zipf_s": func(p string, v *yaml.Node) {
			if x, ok := d.number(v, p); ok {
				if x <= 1 {
					d.errorf(v, "zipf_s: %g must be greater than 1", x)
					return
				}
				sc.ZipfS = x
			}
		},
		"rate": func(p string, v *yaml.Node) {
			if v.Kind == yaml.ScalarNode && v.Value == "closed" {
				sc.Rate = 0
				return
			}
			if x, ok := d.number(v, p); ok {
				if x <= 0 {
					d.errorf(v, "rate: %g must be positive (operations per second), or write rate: closed", x)
					return
				}
				sc.Rate = x
			}
		},
		"duration": func(p string, v *yaml.Node) {
			if x, ok := d.duration(v, p); ok {
				if x == 0 {
					d.errorf(v, "duration: must be positive; leave it out to run until ops are done")
					return
				}
				sc.Duration = x
			}
		},
		"seed": func(p string, v *yaml.Node) {
			if x, ok := d.integer(v, p, -1<<63, 1<<63-1); ok {
				sc.Seed = x
			}
		},
		"duplicate_after_ok":   prob(&sc.DuplicateAfterOK),
		"duplicate_late":       prob(&sc.DuplicateLate),
		"duplicate_late_after": positive(&sc.DuplicateLateAfter, "duplicate_late_after", ""),
		"concurrent_duplicate": prob(&sc.ConcurrentDuplicate),
		"reuse_key":            prob(&sc.ReuseKey),
		"key_across_chats":     prob(&sc.KeyAcrossChats),
		"key_across_senders":   prob(&sc.KeyAcrossSenders),
		"odd_keys":             prob(&sc.OddKeys),
		"outsider_sends":       prob(&sc.OutsiderSends),
		"outsider_syncs":       prob(&sc.OutsiderSyncs),
		"sync_ratio":           prob(&sc.SyncRatio),
		"retries":              count(&sc.Retries, 0, maxRetries),
		"serve": func(p string, v *yaml.Node) {
			if b, ok := d.boolean(v, p); ok {
				sc.Serve = b
			}
		},
		"fail_fast": func(p string, v *yaml.Node) {
			if b, ok := d.boolean(v, p); ok {
				sc.FailFast = b
			}
		},
		"republish_on_replay": func(p string, v *yaml.Node) {
			if b, ok := d.boolean(v, p); ok {
				sc.RepublishOnReplay = b
			}
		},
		"faults": func(p string, v *yaml.Node) {
			d.mapping(v, p, map[string]field{
				"stale_read":            prob(&sc.Faults.StaleRead),
				"crash_after_allocate":  prob(&sc.Faults.CrashAfterAllocate),
				"crash_in_persist":      prob(&sc.Faults.CrashInPersist),
				"crash_after_persist":   prob(&sc.Faults.CrashAfterPersist),
				"publish_fail":          prob(&sc.Faults.PublishFail),
				"crash_before_allocate": prob(&sc.Faults.CrashBeforeAllocate),
				"store_throttle":        prob(&sc.Faults.StoreThrottle),
				"store_internal_error":  prob(&sc.Faults.StoreInternalError),
				"txn_canceled_other":    prob(&sc.Faults.TxnCanceledOther),
				"slow_commit":           prob(&sc.Faults.SlowCommit),
				"slow_commit_delay": func(p string, v *yaml.Node) {
					if x, ok := d.duration(v, p); ok {
						if x <= 0 {
							d.errorf(v, "slow_commit_delay: must be positive; leave it out for %s", bench.DefaultSlowCommitDelay)
							return
						}
						sc.Faults.SlowCommitDelay = x
					}
				},
			})
		},
		"schedule": d.schedule,
		"stages":   d.stages,
		"initial_counter": func(p string, v *yaml.Node) {
			if x, ok := d.integer(v, p, 0, 1<<62); ok {
				sc.InitialCounter = uint64(x)
			}
		},
		"broken":        d.variantKey,
		"variant":       d.variantKey,
		"thresholds":    d.thresholds,
		"expect":        d.expect,
		"allow_unknown": func(p string, v *yaml.Node) { sc.AllowUnknown = d.invariantList(v, p) },
		"require":       func(p string, v *yaml.Node) { sc.Require = d.invariantList(v, p) },
	}
}

// contractFields read a scenario's contract: one key a
// history.ContractFields row, spelled as the header spells it.
func (d *decoder) contractFields() map[string]field {
	fields := map[string]field{}
	for _, cf := range history.ContractFields {
		dst := cf.Of(&d.sc.Contract)
		values := cf.ValueNames()
		fields[cf.Name] = func(p string, v *yaml.Node) {
			if s, ok := d.enum(v, p, values...); ok {
				*dst = s
			}
		}
	}
	return fields
}

// variantKey reads broken: or variant:. Any target's variant here;
// checkVariant matches it to the scenario's target, and its kind to the
// key, once every key is read.
func (d *decoder) variantKey(p string, v *yaml.Node) {
	if s, ok := d.enum(v, p, targets.AllVariantNames()...); ok {
		d.variantKeys = append(d.variantKeys, p)
		d.sc.Variant = sequencer.Variant(s)
	}
}

func (d *decoder) thresholds(p string, v *yaml.Node) {
	items, ok := d.list(v, p)
	if !ok {
		return
	}
	for _, it := range items {
		s, ok := d.scalar(it, p, `a condition such as "allocate.p99 < 50ms"`)
		if !ok {
			continue
		}
		t, err := ParseThreshold(s)
		if err != nil {
			d.errorf(it, "%v", err)
			continue
		}
		t.Line = it.Line
		d.sc.Thresholds = append(d.sc.Thresholds, t)
	}
}

// expect is "pass" or a mapping {violates: [invariant, ...]}.
func (d *decoder) expect(p string, v *yaml.Node) {
	d.sc.Expect.Line = d.lines[p]
	if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
		if v.Value != "pass" {
			d.errorf(v, "expect: %q is not an expectation: write expect: pass, or expect: {violates: [invariant, ...]}", short(v.Value))
		}
		return
	}
	violates := false
	d.mapping(v, p, map[string]field{
		"violates": func(p string, v *yaml.Node) {
			violates = true
			d.sc.Expect.Violates = d.invariantList(v, p)
			if len(d.sc.Expect.Violates) == 0 && len(d.errs) == 0 {
				d.errorf(v, "expect.violates: name at least one invariant; for none write expect: pass")
			}
		},
	})
	if v.Kind == yaml.MappingNode && !violates && len(v.Content) == 0 {
		d.errorf(v, "expect: an empty mapping; write expect: pass, or expect: {violates: [invariant, ...]}")
	}
}

// invariantList reads invariant names the checker reports.
func (d *decoder) invariantList(v *yaml.Node, p string) []string {
	items, ok := d.list(v, p)
	if !ok {
		return nil
	}
	var names []string
	for _, it := range items {
		s, ok := d.scalar(it, p, "an invariant name")
		if !ok {
			continue
		}
		if !slices.Contains(checker.InvariantNames, s) {
			d.errorf(it, "%s: unknown invariant %q%s", p, short(s), suggestOrList(s, checker.InvariantNames))
			continue
		}
		if slices.Contains(names, s) {
			d.errorf(it, "%s: %s is listed twice", p, s)
			continue
		}
		names = append(names, s)
	}
	return names
}
