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

// ReadAll consumes topic from the start up to the end offsets it has when
// called, in partition and offset order.
func ReadAll(ctx context.Context, brokers []string, topic string) ([]Event, error) {
	admClient, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	ends, err := kadm.NewClient(admClient).ListEndOffsets(ctx, topic)
	admClient.Close()
	if err != nil {
		return nil, fmt.Errorf("kafka: end offsets of %s: %w", topic, err)
	}
	remaining := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			remaining[o.Partition] = o.Offset
		}
	})
	if len(remaining) == 0 {
		return nil, nil
	}
	client, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
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
			var p eventPayload
			if err := json.Unmarshal(r.Value, &p); err != nil {
				decodeErr = fmt.Errorf("kafka: %s partition %d offset %d is not a MessagePersisted event: %w", topic, r.Partition, r.Offset, err)
				return
			}
			out = append(out, Event{Chat: p.Payload.ChatID, Seq: p.Payload.Sequence, MessageID: p.Payload.MessageID, Partition: r.Partition, Offset: r.Offset})
			if r.Offset+1 >= end {
				delete(remaining, r.Partition)
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

func isTopicExists(err error) bool { return errors.Is(err, kerr.TopicAlreadyExists) }
