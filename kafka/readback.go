package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Event is one record of the topic as a consumer sees it.
type Event struct {
	Chat      string
	Seq       uint64
	MessageID string
	Partition int32
	Offset    int64
}

type eventPayload struct {
	Payload struct {
		MessageID string `json:"message_id"`
		ChatID    string `json:"chat_id"`
		Sequence  uint64 `json:"sequence"`
	} `json:"payload"`
}

// EndOffsets returns the next offset of each partition of topic that a
// consumer of committed records reaches (Kafka's last stable offset: the
// high watermark unless a transaction is open): taken before a run, it
// marks where that run's events begin on a topic earlier runs have
// written to.
func EndOffsets(ctx context.Context, brokers []string, topic string) (map[int32]int64, error) {
	client, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	defer client.Close()
	return committedEnds(ctx, client, topic)
}

// committedEnds is, per partition of topic, the offset a consumer of
// committed records reads up to (ListCommittedOffsets: the last stable
// offset); an error of any partition fails it.
func committedEnds(ctx context.Context, client *kgo.Client, topic string) (map[int32]int64, error) {
	ends, err := kadm.NewClient(client).ListCommittedOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("kafka: end offsets of %s: %w", topic, err)
	}
	out := map[int32]int64{}
	var perPartition error
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			perPartition = errors.Join(perPartition, o.Err)
			return
		}
		out[o.Partition] = o.Offset
	})
	if perPartition != nil {
		return nil, fmt.Errorf("kafka: end offsets of %s: %w", topic, perPartition)
	}
	return out, nil
}

// eventOf is record r of topic as an event; ok is false for a
// transaction's marker, which is no event (committedReads hands them
// over so that reading passes their offsets).
func eventOf(topic string, r *kgo.Record) (e Event, ok bool, err error) {
	if r.Attrs.IsControl() {
		return Event{}, false, nil
	}
	var p eventPayload
	if err := json.Unmarshal(r.Value, &p); err != nil {
		return Event{}, false, fmt.Errorf("kafka: %s partition %d offset %d is not a MessagePersisted event: %w", topic, r.Partition, r.Offset, err)
	}
	return Event{Chat: p.Payload.ChatID, Seq: p.Payload.Sequence, MessageID: p.Payload.MessageID, Partition: r.Partition, Offset: r.Offset}, true, nil
}

// ReadAll consumes topic from the start up to its end offsets at the call.
func ReadAll(ctx context.Context, brokers []string, topic string) ([]Event, error) {
	return ReadFrom(ctx, brokers, topic, nil)
}

// ReadFrom consumes topic from the offsets in from (a partition not named
// starts at 0) up to its end offsets at the call, in partition and offset
// order.
func ReadFrom(ctx context.Context, brokers []string, topic string, from map[int32]int64) ([]Event, error) {
	ends, err := EndOffsets(ctx, brokers, topic)
	if err != nil {
		return nil, err
	}
	remaining := map[int32]int64{}
	starts := map[int32]kgo.Offset{}
	for p, end := range ends {
		if end > from[p] {
			remaining[p] = end
			starts[p] = kgo.NewOffset().At(from[p])
		}
	}
	if len(remaining) == 0 {
		return nil, nil
	}
	client, err := kgo.NewClient(append(committedReads(),
		kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
	)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	defer client.Close()
	var out []Event
	for len(remaining) > 0 {
		fetches := client.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("kafka: reading %s back: %w", topic, err)
		}
		var fetchErr error
		fetches.EachError(func(_ string, _ int32, err error) { fetchErr = errors.Join(fetchErr, err) })
		if fetchErr != nil {
			return nil, fmt.Errorf("kafka: reading %s back: %w", topic, fetchErr)
		}
		var decodeErr error
		fetches.EachRecord(func(r *kgo.Record) {
			end, wanted := remaining[r.Partition]
			if !wanted || r.Offset >= end {
				return
			}
			if r.Offset+1 >= end {
				delete(remaining, r.Partition)
			}
			e, ok, err := eventOf(topic, r)
			if err != nil {
				decodeErr = err
			} else if ok {
				out = append(out, e)
			}
		})
		if decodeErr != nil {
			return nil, decodeErr
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out, nil
}

// committedReads are the options of a client that reads the topic back as
// a consumer of committed records sees it, and knows how far it has read.
// A relay publishing in transactions (an exactly-once outbox) leaves a
// commit or abort marker after each transaction, at an offset of its own:
// the marker is handed over (and passed by, never decoded) so that reading
// up to an end offset that follows one ends; and an aborted transaction's
// records, which no such consumer sees, are not events of the topic.
func committedReads() []kgo.Opt {
	return []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords()}
}

func isTopicExists(err error) bool { return errors.Is(err, kerr.TopicAlreadyExists) }
