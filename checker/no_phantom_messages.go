package checker

import (
	"fmt"
	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameNoPhantomMessages is the invariant's name as HISTORY.md spells it.
const NameNoPhantomMessages = "no_phantom_messages"

// checkNoPhantomMessages: with sole_writer (the history's clients are its
// chats' only writers), every final message and idempotency record above
// initial_counter carries a key some persist of its chat used (in
// key_scope); one that none did was written by no client of the history
// (a record is written with its message, in one transaction). A key only
// failed persists used is not a phantom's but fail_has_no_effect's.
// Without sole_writer such lines may be another writer's: warned about,
// not judged.
func checkNoPhantomMessages(x *index) Result {
	v := newVerdict(NameNoPhantomMessages)
	if !x.HasMessages && !x.HasIdem {
		v.notApplicable("no final messages or idempotency lines")
		return v.result()
	}
	var phantoms []int32
	judged, keyless := 0, 0
	for i, f := range x.RunsLines() { // those at or below initial_counter are from before the run
		switch {
		case f.Key == store.FinKeyUnsent:
			judged++
			phantoms = append(phantoms, i)
		case f.Key < 0:
			if _, texted := x.SenderlessKey[i]; texted && x.SoleWriter {
				// Without a sender, of a key text several senders of its
				// chat used (none used it: FinKeyUnsent): whichever
				// sender's it is, a persist of the chat used its key.
				judged++
				continue
			}
			keyless++
		default:
			judged++
			if len(x.KeyOps(f.Key)) == 0 {
				phantoms = append(phantoms, i)
			}
		}
	}
	if x.SoleWriter && x.HasMessages {
		storedAsNoneSent(v, x)
		keylessBeyondCould(v, x)
	}
	if judged == 0 && keyless > 0 && v.Fails() == 0 {
		v.notApplicable("no final message or idempotency record above initial_counter carries a key that can be attributed (%d carry none): a message no client sent cannot be recognized", keyless)
		return v.result()
	}
	if !x.SoleWriter {
		if len(phantoms) > 0 {
			f := x.Fin.At(phantoms[0])
			x.Warn("%s (messages or idempotency records) above initial_counter carry a key no persist of their chat sent, e.g. chat %q seq %d, %s (%s line %d): another writer's, or phantom writes (not judged: the history does not say it is its chats' only writer)",
				plural(len(phantoms), "final line"), x.ChatNames[f.Chat], f.Seq, x.phantomKey(f), f.Table, f.Line)
		}
		v.notApplicable("the history does not say its clients are its chats' only writers (header sole_writer, or chatseq check --sole-writer): %s (messages or idempotency records) no persist sent may be another writer's, warned about and not judged",
			plural(len(phantoms), "final line"))
		return v.result()
	}
	for _, i := range phantoms {
		f := x.Fin.At(i)
		what := "message"
		if f.Table == store.TableIdempotency {
			what = "idempotency record of message"
		}
		v.fail([]int{int(f.Line)}, "chat %q seq %d: the final %s %q (line %d) carries %s, which no persist of the chat sent, and the history says its clients are the chat's only writers (sole_writer)",
			x.ChatNames[f.Chat], f.Seq, what, x.MidName(f.MessageID), f.Line, x.phantomKey(f))
	}
	if keyless > 0 {
		v.unknown("%d final messages or idempotency records above initial_counter carry no key that can be attributed", keyless)
	}
	v.pass("%s (messages or idempotency records) above initial_counter: each carries a key a persist of its chat sent", plural(judged, "final line"))
	return v.result()
}

// phantomKey names a phantom message's key: its text, or, for a line
// without a sender whose key no sender used (key_scope client), that.
func (x *index) phantomKey(f *store.FinalRecord) string {
	if f.Key == store.FinKeyUnsent {
		return "a key, without a sender, that no sender of the chat used (key_scope client)"
	}
	return fmt.Sprintf("key %q", x.FinKeyName(f))
}
