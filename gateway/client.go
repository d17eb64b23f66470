package gateway

import (
	"context"
	"errors"
)

// The device's side of a push channel: what a client of the delivery
// plane (bench's receivers) needs of a service, whether the gateway is in
// its own process or behind chatseq serve's /v1/push.

// Conn is one open connection of a device to a push channel.
type Conn interface {
	// Next reads the next batch the channel streamed, in the order
	// streamed; the slice is the caller's. An error ends the connection.
	Next(ctx context.Context) ([]Message, error)
	// Ack sends ADR-001 §5's delivery ack on the connection.
	Ack(ctx context.Context, chat string, seq uint64) error
	// Drop ends the connection at once, as a lost network does.
	Drop()
	// Close ends it normally, once the acks sent were taken in.
	Close()
}

// Channel is a service's delivery plane as its devices reach it: the push
// channel, a catch-up sync as the device's user (ADR-001 §4), and the
// delivery_state table (§5).
type Channel interface {
	Dial(ctx context.Context, user string) (Conn, error)
	// CatchUp is one page of the chat after after, read as user, in
	// sequence order.
	CatchUp(ctx context.Context, user, chat string, after uint64, limit int) ([]Message, error)
	DeliveryStates(ctx context.Context, chat string) ([]DeliveryState, error)
	// Quiesce returns once what the service published so far has been
	// offered to the connected devices, as far as the client can tell.
	Quiesce(ctx context.Context) error
	Close()
}

// MessageBound is a Channel that knows how many messages a chat can hold
// at most (a correct service holds at most one a send, and what it
// writes itself): a device's catch-up that reads more is cut short.
type MessageBound interface {
	MostMessages(chat string) int64
}

// ChannelServer is a target that serves its own push channel (a service
// over HTTP).
type ChannelServer interface {
	PushChannel(ctx context.Context) (Channel, error)
}

// ErrRefused is a handshake the service answered with a refusal (an HTTP
// error, not 101): errors.Is tells it from a dial that failed on the
// way (a network error, a timeout).
var ErrRefused = errors.New("push channel refused")

// AnonymousDialer is a Channel that can open a connection naming no user
// (a WebSocket handshake without the user header or parameter), which
// the service must refuse: bench's anonymous devices. NamesUsers says
// whether its other dials name one; if not, an anonymous dial is like
// any other and is not made.
type AnonymousDialer interface {
	DialAnonymous(ctx context.Context) (Conn, error)
	NamesUsers() bool
}

// Anonymous is ch's AnonymousDialer when it can dial naming no user,
// else nil.
func Anonymous(ch Channel) AnonymousDialer {
	if a, ok := ch.(AnonymousDialer); ok && a.NamesUsers() {
		return a
	}
	return nil
}

// StateReaderAs is a Channel that can read a chat's delivery_state as a
// user it names (the http target, naming its caller): bench's outsider
// devices each read one chat's, which the API answers to members alone
// (403 otherwise). nil: it was answered; an error wrapping ErrRefused:
// refused (an HTTP 4xx but 429); another error: neither is known.
type StateReaderAs interface {
	ReadStateAs(ctx context.Context, user, chat string) error
}
