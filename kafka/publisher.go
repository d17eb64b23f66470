// Package kafka publishes MessagePersisted events with franz-go (acks=all)
// and reads a topic back after a run, so the history's events lines show
// what consumers would really see.
package kafka

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chatseq/chatseq/sequencer"
)

// Publisher produces each event synchronously: ADR-004 ACKs only after the
// broker has acknowledged the write to all in-sync replicas.
type Publisher struct {
	client  *kgo.Client
	topic   string
	bufPool sync.Pool
}

// NewPublisher connects to brokers and makes sure the topic exists.
func NewPublisher(ctx context.Context, brokers []string, topic string, partitions int32) (*Publisher, error) {
	client, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DefaultProduceTopic(topic),
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(10*time.Second),
	)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	if err := EnsureTopic(ctx, client, topic, partitions); err != nil {
		client.Close()
		return nil, err
	}
	p := &Publisher{client: client, topic: topic}
	p.bufPool.New = func() any { b := make([]byte, 0, 512); return &b }
	return p, nil
}

// EnsureTopic creates topic if the cluster does not have it.
func EnsureTopic(ctx context.Context, client *kgo.Client, topic string, partitions int32) error {
	adm := kadm.NewClient(client)
	details, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return fmt.Errorf("kafka: listing topics: %w", err)
	}
	if details.Has(topic) && details[topic].Err == nil {
		return nil
	}
	resp, err := adm.CreateTopic(ctx, partitions, -1, nil, topic)
	if err != nil {
		return fmt.Errorf("kafka: creating topic %s: %w", topic, err)
	}
	if resp.Err != nil && !isTopicExists(resp.Err) {
		return fmt.Errorf("kafka: creating topic %s: %v", topic, resp.Err)
	}
	return nil
}

// Publish sends ev keyed by chat id and waits for the acknowledgement.
func (p *Publisher) Publish(ctx context.Context, ev sequencer.MessagePersisted) error {
	bp := p.bufPool.Get().(*[]byte)
	value := ev.AppendJSON((*bp)[:0])
	rec := &kgo.Record{Topic: p.topic, Key: []byte(ev.Chat), Value: value}
	err := p.client.ProduceSync(ctx, rec).FirstErr()
	*bp = value
	p.bufPool.Put(bp)
	return err
}

// Close flushes and disconnects.
func (p *Publisher) Close() { p.client.Close() }
