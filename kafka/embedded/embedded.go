// Package embedded starts franz-go's in-process Kafka (kfake) on
// loopback: the embedded default for step 5, needing nothing installed.
package embedded

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Cluster is a running in-process Kafka.
type Cluster struct {
	c *kfake.Cluster
}

// segmentBytes is the size at which a partition's log starts a new
// segment. A run's tail deletes what it has read (DeleteRecords), but the
// broker lets go of whole segments only: at kfake's default (100 MiB, as
// Kafka's) the active segments held every record of a one-minute run, a
// tenth of its memory.
const segmentBytes = 1 << 20

// Start runs a one-broker cluster with topic seeded at partitions.
func Start(topic string, partitions int32) (*Cluster, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic),
		kfake.BrokerConfigs(map[string]string{"log.segment.bytes": fmt.Sprint(segmentBytes)}))
	if err != nil {
		return nil, fmt.Errorf("starting in-process kafka: %w", err)
	}
	return &Cluster{c: c}, nil
}

// Brokers are the addresses to dial.
func (c *Cluster) Brokers() []string { return c.c.ListenAddrs() }

// Close stops the cluster.
func (c *Cluster) Close() { c.c.Close() }
