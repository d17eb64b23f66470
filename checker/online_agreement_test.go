package checker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// membershipHistory is a random JSONL history with join and leave lines between
// persists and syncs naming their users: send_authorization's and
// read_authorization's online rules against the check after the run.
func membershipHistory(rng *rand.Rand, disorder bool) string {
	var sb strings.Builder
	scope := []string{"", `,"contract":{"key_scope":"client"}`, `,"contract":{"key_scope":"chat"}`}[rng.IntN(3)]
	fmt.Fprintf(&sb, `{"format":"chatseq-history","version":1%s}`+"\n", scope)
	procs := 1 + rng.IntN(4)
	type open struct {
		f, chat, key string
	}
	opens := make([]*open, procs)
	now := int64(1)
	ops := 2 + rng.IntN(14)
	chats := []string{"c0", "c1"}
	users := []string{"u0", "u1", "u2", "u3"}
	member := map[string]bool{}
	tick := func() int64 {
		if disorder && rng.IntN(12) == 0 {
			now -= int64(rng.IntN(3))
		} else if rng.IntN(3) > 0 {
			now++
		}
		return now
	}
	for ops > 0 || slices.ContainsFunc(opens, func(o *open) bool { return o != nil }) {
		if rng.IntN(4) == 0 {
			c, u := chats[rng.IntN(2)], users[rng.IntN(3)]
			kind := "join"
			if member[c+"/"+u] {
				kind = "leave"
			}
			member[c+"/"+u] = !member[c+"/"+u]
			fmt.Fprintf(&sb, `{"type":%q,"chat":%q,"user":%q,"time":%d}`+"\n", kind, c, u, tick())
			continue
		}
		p := rng.IntN(procs)
		if o := opens[p]; o != nil {
			opens[p] = nil
			switch r := rng.IntN(10); {
			case r == 0:
				fmt.Fprintf(&sb, `{"type":"fail","process":%d,"f":%q,"error":"not_a_member","time":%d}`+"\n", p, o.f, tick())
			case r == 1:
				fmt.Fprintf(&sb, `{"type":"info","process":%d,"f":%q,"error":"timeout","time":%d}`+"\n", p, o.f, tick())
			case o.f == "sync":
				fmt.Fprintf(&sb, `{"type":"ok","process":%d,"f":"sync","seqs":[],"message_ids":[],"time":%d}`+"\n", p, tick())
			default:
				fmt.Fprintf(&sb, `{"type":"ok","process":%d,"f":"persist","seq":%d,"message_id":"m%d","dedup":%v,"time":%d}`+"\n",
					p, 1+rng.IntN(6), rng.IntN(5), rng.IntN(3) == 0, tick())
			}
			continue
		}
		if ops == 0 {
			continue
		}
		ops--
		chat := chats[rng.IntN(2)]
		if rng.IntN(4) == 0 {
			u := users[rng.IntN(4)]
			fmt.Fprintf(&sb, `{"type":"invoke","process":%d,"f":"sync","chat":%q,"after":0,"limit":100,"user":%q,"time":%d}`+"\n", p, chat, u, tick())
			opens[p] = &open{f: "sync", chat: chat}
			continue
		}
		key := fmt.Sprint("k", rng.IntN(3))
		sender := users[rng.IntN(4)]
		fmt.Fprintf(&sb, `{"type":"invoke","process":%d,"f":"persist","chat":%q,"key":%q,"sender":%q,"payload_hash":"h","time":%d}`+"\n", p, chat, key, sender, tick())
		opens[p] = &open{f: "persist", chat: chat, key: key}
	}
	return sb.String()
}

// Random histories with join and leave lines between persists and syncs
// naming their users, under each key_scope: what the online check reports
// of send_authorization and read_authorization (answers as new alone,
// chats joined late included) the check after the run fails, whether its batches are settled at each line or never, and
// it reports some of each.
func TestOnlineMembershipNeverContradictsOffline(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	caught, offFails := map[string]int{}, map[string]int{}
	for i := range randomRuns(2000) {
		text := membershipHistory(rng, false)
		h, err := history.Read(strings.NewReader(text), "h.jsonl")
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		rep := Check(h, Options{})
		status := map[string]Result{}
		for _, r := range rep.Invariants {
			status[r.Name] = r
			if r.Status == Fail {
				offFails[r.Name]++
			}
		}
		a, b := feedLines(NewOnline(nil), h, true).Violations(), feedLines(NewOnline(nil), h, false).Violations()
		for _, v := range a {
			if status[v.Invariant].Status != Fail {
				t.Fatalf("history %d: online found %s (%s) lines %v, offline says %q (%s)\n%s", i, v.Invariant, v.Detail, v.Lines, status[v.Invariant].Status, status[v.Invariant].Detail, text)
			}
			caught[v.Invariant]++
		}
		key := func(vs []Violation) string {
			slices.SortFunc(vs, func(x, y Violation) int { return strings.Compare(x.Invariant, y.Invariant) })
			s := ""
			for _, v := range vs {
				s += fmt.Sprintf("%s%v;", v.Invariant, v.Lines)
			}
			return s
		}
		if key(a) != key(b) {
			t.Fatalf("history %d: batched each line %s, never %s\n%s", i, key(a), key(b), text)
		}
	}
	for _, name := range []string{NameSendAuthorization, NameReadAuthorization} {
		if caught[name] == 0 || offFails[name] == 0 {
			t.Errorf("%s: found online in %d histories, failed after the run in %d: the histories exercise nothing", name, caught[name], offFails[name])
		}
	}
}

// judgedOnlineAndAfter is what the check after the run and the online
// check (fed with BatchDone after each line and never) say of a file.
func judgedOnlineAndAfter(t *testing.T, path string) (map[string]Result, []Violation, []Violation) {
	t.Helper()
	rep, _, err := CheckFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]Result{}
	for _, r := range rep.Invariants {
		status[r.Name] = r
	}
	a, b := feedLines(NewOnline(nil), h, true).Violations(), feedLines(NewOnline(nil), h, false).Violations()
	for _, v := range a {
		t.Logf("online (each line): %s %v: %s; offline %s: %s", v.Invariant, v.Lines, v.Detail, status[v.Invariant].Status, status[v.Invariant].Detail)
	}
	for _, v := range b {
		t.Logf("online (never): %s %v: %s", v.Invariant, v.Lines, v.Detail)
	}
	for _, r := range rep.Invariants {
		if r.Status == Fail {
			t.Logf("offline FAIL %s: %s", r.Name, r.Detail)
		}
	}
	return status, a, b
}

// A push's or a page's content is compared online with the persist whose
// ack was its sequence's first, and after the run with the message's
// creating ack invoked first: two sends answered at one (seq, message_id)
// as new, the one invoked first answered second, made the online check
// flag identical_order (or sync_completeness) while the check after the
// run passed it; and one id at two sequences made it flag identical_order
// at a push of the second sequence, which the check after the run
// compares with the first (it fails sequence_uniqueness). Each invariant
// flagged online fails after the run; where both compare, both fail.
func TestContentIsComparedWithOneCreatorOnlineAndAfter(t *testing.T) {
	for _, tc := range []struct {
		file, both string // both: failed online and after the run
	}{
		{"one-message-two-creators-push", NameIdenticalOrder},
		{"one-seq-two-sends-claim", NameIdenticalOrder},
		{"one-seq-two-sends-sync", NameSyncCompleteness},
		{"id-two-seqs-push-content", NameSequenceUniqueness},
	} {
		status, each, never := judgedOnlineAndAfter(t, "testdata/one-message-two-creators/"+tc.file+".jsonl")
		for _, vs := range [][]Violation{each, never} {
			for _, v := range vs {
				if status[v.Invariant].Status != Fail {
					t.Errorf("%s: online flagged %s (%s), after the run %s (%s)", tc.file, v.Invariant, v.Detail, status[v.Invariant].Status, status[v.Invariant].Detail)
				}
			}
			if !slices.ContainsFunc(vs, func(v Violation) bool { return v.Invariant == tc.both }) || status[tc.both].Status != Fail {
				t.Errorf("%s: %s not failed both online (%v) and after the run (%s)", tc.file, tc.both, vs, status[tc.both].Status)
			}
		}
	}
}
