package serve

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/metrics"
)

// chatseq serve with the embedded Kafka pushes what it persists to a
// member's device and keeps its ack; with Kafka off /v1/push refuses with
// push.unavailable.
func TestServePushesFromItsTopicAndOnlyWithOne(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exporter := metrics.New()
	srv, err := Start(ctx, Options{Target: "memory", Kafka: KafkaEmbedded, Partitions: 2, Listen: "127.0.0.1:0", Seed: 1, Metrics: exporter})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base := "http://" + srv.Addr
	call := func(method, path, key, body string) {
		t.Helper()
		status, answer := do(t, ctx, method, base+path, "u1", key, body)
		if status/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, status, answer)
		}
	}
	call("PUT", "/v1/chats/c1", "", `{"members":["u1","u2"]}`)
	dev, err := httpapi.DialPush(ctx, base, "u2", httpapi.PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	call("POST", "/v1/chats/c1/messages", "k1", `{"content":"hello"}`)
	msgs, err := dev.Next(ctx)
	if err != nil || len(msgs) != 1 || msgs[0].Content != "hello" || msgs[0].Sequence != 1 {
		t.Fatalf("u2's device got %+v (%v), want the message at 1", msgs, err)
	}
	if err := dev.Ack(ctx, "c1", 1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, answer := do(t, ctx, "GET", base+"/v1/chats/c1/delivery_state", "u1", "", "")
		if answer == `{"chat_id":"c1","delivery_state":[{"user_id":"u2","last_acked_sequence":1}]}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery_state never showed u2's ack: %s", answer)
		}
		time.Sleep(10 * time.Millisecond)
	}
	fams, err := exporter.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]float64{}
	for _, f := range fams {
		if m := f.GetMetric(); len(m) == 1 && m[0].Counter != nil {
			exported[f.GetName()] = m[0].Counter.GetValue()
		}
	}
	if exported["chatseq_push_deliveries_total"] != 1 || exported["chatseq_push_feed_records_total"] != 1 {
		t.Errorf("live metrics: deliveries %g, feed records %g; want 1 and 1", exported["chatseq_push_deliveries_total"], exported["chatseq_push_feed_records_total"])
	}
	if line := srv.PushLine(); line != "push channel at ws://"+srv.Addr+"/v1/push, delivery_state kept in this process's memory (a restart forgets it)" {
		t.Errorf("push line %q", line)
	}

	off, err := Start(ctx, Options{Target: "memory", Kafka: KafkaOff, Listen: "127.0.0.1:0", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	var refused *httpapi.PushRefusedError
	if _, err := httpapi.DialPush(ctx, "http://"+off.Addr, "u1", httpapi.PushDialOptions{}); !errors.As(err, &refused) || refused.Code != httpapi.CodePushOff {
		t.Errorf("push on a server without Kafka: %v, want %s", err, httpapi.CodePushOff)
	}
}

// do makes one request as user and returns its status and body.
func do(t *testing.T, ctx context.Context, method, url, user, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(httpapi.HeaderUser, user)
	if key != "" {
		req.Header.Set(httpapi.HeaderIdempotencyKey, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// serve --broken gateway-foreign-push runs the broken gateway behind
// /v1/push: a device is pushed another chat's message (two chats that
// share its membership index's bucket). Without the events topic there is
// no push channel to break: Start refuses.
func TestServeRunsTheForeignPushGateway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := Start(ctx, Options{Target: "memory", Variant: "gateway-foreign-push", Listen: "127.0.0.1:0", Seed: 1, Metrics: metrics.New()}); err == nil || !strings.Contains(err.Error(), "needs the events topic") {
		t.Fatalf("Kafka off: %v, want a refusal", err)
	}
	srv, err := Start(ctx, Options{Target: "memory", Variant: "gateway-foreign-push", Kafka: KafkaEmbedded, Partitions: 2, Listen: "127.0.0.1:0", Seed: 1, Metrics: metrics.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base := "http://" + srv.Addr
	bucket := func(chat string) uint32 {
		h := fnv.New32a()
		h.Write([]byte(chat))
		return h.Sum32() % gateway.ForeignBuckets
	}
	other := ""
	for i := 1; other == ""; i++ {
		if c := fmt.Sprintf("c%d", i); bucket(c) == bucket("c0") {
			other = c
		}
	}
	call := func(method, path, user, key, body string) {
		t.Helper()
		if status, answer := do(t, ctx, method, base+path, user, key, body); status/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, status, answer)
		}
	}
	call("PUT", "/v1/chats/c0", "u0", "", `{"members":["u0","m0"]}`)
	call("PUT", "/v1/chats/"+other, "u1", "", `{"members":["u1","m1"]}`)
	dev, err := httpapi.DialPush(ctx, base, "m0", httpapi.PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	call("POST", "/v1/chats/"+other+"/messages", "u1", "k1", `{"content":"not for m0"}`)
	next, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	msgs, err := dev.Next(next)
	if err != nil || len(msgs) != 1 || msgs[0].ChatID != other {
		t.Fatalf("m0's device got %+v (%v), want %s's message (the broken gateway)", msgs, err, other)
	}
}

// The kafka_outage test hook fails the server's produces: a send during
// the outage commits and answers the unknown outcome of a failed step 5
// (publish_failed), and nothing reaches the push channel's topic. It is
// refused without the test hooks (404 test_hooks.off), without Kafka
// (409 kafka.off) and without a positive for_ms (400).
func TestServeKafkaOutageHookFailsTheProduces(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := func(kafka string, hooks bool) string {
		t.Helper()
		srv, err := Start(ctx, Options{Target: "memory", Kafka: kafka, Partitions: 1, Listen: "127.0.0.1:0", Seed: 1, TestHooks: hooks})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return "http://" + srv.Addr
	}
	base := start(KafkaEmbedded, true)
	for _, c := range []struct {
		base, body string
		status     int
		code       string
	}{
		{start(KafkaEmbedded, false), `{"for_ms":1000}`, 404, httpapi.CodeTestHooksOff},
		{start(KafkaOff, true), `{"for_ms":1000}`, 409, httpapi.CodeKafkaOff},
		{base, `{"for_ms":0}`, 400, httpapi.CodeBadRequest},
	} {
		status, answer := do(t, ctx, "POST", c.base+httpapi.KafkaOutagePath, "u1", "", c.body)
		if status != c.status || !strings.Contains(answer, c.code) {
			t.Errorf("outage %s: %d %s, want %d %s", c.body, status, answer, c.status, c.code)
		}
	}
	// The settle hook (bench --target http's Settle) answers once the
	// target settled; without the hooks it is not there.
	if status, answer := do(t, ctx, "POST", base+httpapi.SettlePath, "u1", "", ""); status != 204 {
		t.Errorf("settle: %d %s, want 204", status, answer)
	}
	if status, answer := do(t, ctx, "POST", start(KafkaOff, false)+httpapi.SettlePath, "u1", "", ""); status != 404 || !strings.Contains(answer, httpapi.CodeTestHooksOff) {
		t.Errorf("settle without the hooks: %d %s, want 404 %s", status, answer, httpapi.CodeTestHooksOff)
	}
	if status, answer := do(t, ctx, "PUT", base+"/v1/chats/c1", "u1", "", `{"members":["u1","u2"]}`); status != 201 {
		t.Fatalf("create: %d %s", status, answer)
	}
	// An hour: the send below falls inside it however loaded the machine.
	if status, answer := do(t, ctx, "POST", base+httpapi.KafkaOutagePath, "u1", "", `{"for_ms":3600000}`); status != 204 {
		t.Fatalf("outage: %d %s, want 204", status, answer)
	}
	status, answer := do(t, ctx, "POST", base+"/v1/chats/c1/messages", "u1", "k1", `{"content":"hello"}`)
	if status/100 == 2 || !strings.Contains(answer, "publish_failed") {
		t.Fatalf("a send during the outage: %d %s, want the unknown outcome publish_failed", status, answer)
	}
	if status, answer := do(t, ctx, "GET", base+"/v1/chats/c1/messages", "u1", "", ""); status != 200 || !strings.Contains(answer, `"sequence":1`) {
		t.Errorf("the send committed before its publish failed: sync %d %s, want the message at 1", status, answer)
	}
}
