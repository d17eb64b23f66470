package online

import (
	"github.com/chatseq/chatseq/checker/internal/store"
)

// A push or a sync's answer often shows a message before its sender's
// ack line (in a run with receivers, two thirds of pushes reach a device
// first): what it said the message carried is kept as a claim, judged
// when the ack comes, as the check after the run judges every one. An
// outside tester's altered push and page passed online for that reason
// while the check after the run failed them.
//
// A claim waits while its chat's acks are within claimWindow sequences
// of it, and at most claimsMax claims wait in all: a message whose ack
// never comes (its persist's outcome unknown) is left to the check after
// the run, which reads the final state.
const (
	claimWindow = 4096
	claimsMax   = 1 << 16
)

// contentClaim is what one push or sync answer said a message carried.
type contentClaim struct {
	id   uint64 // the message id's hash it gave
	said store.Carried
	line int32
	push bool // identical_order's; else sync_completeness's
}

type pendingClaims struct {
	byChatSeq map[chatSeq][]contentClaim
	n         int
}

// claim keeps what a line said of chat c's seq, shown before its ack;
// an identical claim of the same sequence is kept once.
func (o *Checker) claim(c int32, seq uint64, cl contentClaim) {
	p := &o.claims
	if p.byChatSeq == nil {
		p.byChatSeq = map[chatSeq][]contentClaim{}
	}
	cs := chatSeq{c, seq}
	for _, have := range p.byChatSeq[cs] {
		if have.id == cl.id && have.said == cl.said && have.push == cl.push {
			return
		}
	}
	if p.n >= claimsMax {
		o.pruneClaims()
		if p.n >= claimsMax {
			return
		}
	}
	p.byChatSeq[cs] = append(p.byChatSeq[cs], cl)
	p.n++
}

// pruneClaims drops the claims whose chat's acks are claimWindow past.
func (o *Checker) pruneClaims() {
	p := &o.claims
	for cs, cls := range p.byChatSeq {
		if cs.seq+claimWindow < o.acked[cs.chat].top {
			delete(p.byChatSeq, cs)
			p.n -= len(cls)
		}
	}
}

// judgeClaims judges the claims on chat c's seq against what the persist
// whose ack at line ackLine created the message (id mid) sent, and drops
// them. It reports whether it found a violation.
func (o *Checker) judgeClaims(c int32, seq, mid uint64, sent store.Carried, ackLine int32, at int64) bool {
	p := &o.claims
	cs := chatSeq{c, seq}
	cls, ok := p.byChatSeq[cs]
	if !ok {
		return false
	}
	delete(p.byChatSeq, cs)
	p.n -= len(cls)
	for _, cl := range cls {
		if cl.id != mid {
			continue // another message's: sequence_uniqueness's or identical_order's
		}
		why := store.Differs(cl.said, sent)
		if why == "" || o.idElsewhere(c, mid, seq) {
			continue
		}
		if cl.push {
			o.violate(IdenticalOrder, []int{int(cl.line), int(ackLine)}, at,
				"the push at line %d gives chat %q seq %d %s than the persist acknowledged at line %d sent: a message is pushed as it was sent", cl.line, o.names[c], seq, why, ackLine)
		} else {
			o.violate(SyncCompleteness, []int{int(cl.line), int(ackLine)}, at,
				"sync at line %d on chat %q returned seq %d with %s than the persist acknowledged at line %d sent: a read shows a message as it was sent", cl.line, o.names[c], seq, why, ackLine)
		}
		return true
	}
	return false
}
