package history

// Receiver is one line of the delivery plane (FORMAT.md, "Receivers"):
// what a chat member's device saw (connect, disconnect, push,
// delivery_ack, settled), the chats' membership (join, leave), or a row
// of the final delivery_state table (Kind KindFinal). Fields a kind does
// not carry are zero.
type Receiver struct {
	Line int // 1-based line in the file it was read from; 0 if recorded
	Kind Kind
	// Time is when the device saw it, on the operations' clock; 0 on a
	// final line.
	Time   int64
	Device string // connect, disconnect, push, delivery_ack, settled
	User   string // connect, join, leave, state_read, final delivery_state
	Chat   string // push, delivery_ack, join, leave, state_read, final delivery_state
	// Seq is a delivery_ack's or a delivery_state row's
	// last_acked_sequence.
	Seq uint64
	// Seqs and MessageIDs are what a push delivered, in the order it
	// delivered them; IDHashes replaces MessageIDs for a Sink that is an
	// IDHasher, as in SyncResult.
	Seqs       []uint64
	MessageIDs []string
	IDHashes   []uint64
	// PayloadHashes and Senders, when a push carries them, are each
	// pushed message's content hashed as its persist's payload_hash was,
	// and its sender (FORMAT.md, "Receivers"): identical_order compares
	// them with the persist that created the message.
	PayloadHashes []string
	Senders       []string
	Error         string // connect (why it was refused), disconnect (why it dropped)
	// Refused marks a connect whose identity the server refused, or a
	// state_read it refused.
	Refused bool
	// CatchUp marks a push the device fetched by a catch-up sync (ADR-001
	// §4), not one streamed on its connection.
	CatchUp bool
}

// ReceiverSink is a Sink that also takes the receivers' lines, in file
// order among the others. A Sink that is not one leaves them in
// History.Receivers.
type ReceiverSink interface {
	Sink
	Receiver(r *Receiver)
}

// isReceiverKind reports whether k is one of the receivers' own line
// types (a final delivery_state line is a final line).
func isReceiverKind(k Kind) bool { return k >= KindConnect && k <= KindStateRead }

// HasReceivers reports whether h holds any receiver line read into
// History.Receivers.
func (h *History) HasReceivers() bool { return len(h.Receivers) > 0 }
