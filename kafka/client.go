package kafka

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chatseq/chatseq/internal/memnet"
)

// newClient is every client of this package: seeded with brokers, which
// it dials in process when they are this process's embedded broker
// (memnet: no loopback socket), else over TCP.
func newClient(brokers []string, opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.Dialer(memnet.Dial)}, opts...)...)
}
