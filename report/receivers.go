package report

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
)

// Receivers is what bench --receivers' devices did and saw, with the
// delivery plane's latencies: fan_out (a message's created_at to each
// device's first receipt) and full_visibility (to its chat's last
// device's).
type Receivers struct {
	bench.ReceiverCounts
	PerChat              int           `json:"per_chat"`
	DropConnectionsEvery float64       `json:"drop_connections_every_s,omitempty"`
	Latency              []Percentiles `json:"latency"`
}

func receiversOf(res *bench.Result) *Receivers {
	if res.Config.Receivers == 0 {
		return nil
	}
	r := &Receivers{ReceiverCounts: res.Receivers, PerChat: res.Config.Receivers, DropConnectionsEvery: res.Config.DropConnectionsEvery.Seconds()}
	for _, s := range []struct {
		name string
		h    *hdrhistogram.Histogram
	}{{"fan_out", res.FanOut}, {"full_visibility", res.FullVisibility}} {
		if s.h != nil {
			r.Latency = append(r.Latency, percentilesOf(s.name, s.h))
		}
	}
	return r
}

func percentilesOf(step string, h *hdrhistogram.Histogram) Percentiles {
	return Percentiles{
		Step: step, Count: h.TotalCount(),
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
		P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()),
	}
}

// addReceivers adds the devices' lines to the report's counts table.
func (t *table) addReceivers(r *Receivers) {
	drops := ""
	if r.DropConnectionsEvery > 0 {
		drops = fmt.Sprintf(", %s (every %gs)", count(r.Drops, "connection drop"), r.DropConnectionsEvery)
	}
	t.add("  receivers", fmt.Sprint(r.Devices), fmt.Sprintf("devices (%d a chat), %s, %s%s", r.PerChat, count(r.Connects, "connect"), count(r.Reconnects, "reconnect"), drops))
	if r.Outsiders > 0 {
		t.add("    outsiders", fmt.Sprint(r.Outsiders), fmt.Sprintf("devices of users of no chat (--outsider-devices, --anonymous-devices), held open through the run: push_authorization judges what they are pushed; %s refused; %s of a chat's delivery_state as them (read_authorization judges them); %s pushed to any device of a chat its user is not in", count(r.Refused, "handshake"), count(r.StateReads, "read"), count(r.Foreign, "message")))
	}
	t.add("    deliveries", fmt.Sprint(r.Deliveries), fmt.Sprintf("%s received in %s; %s, %d out of order; %s; %d streamed, %d only by catch-up", count(r.Received, "message"), count(r.Pushes, "push line"), count(r.Duplicates, "duplicate"), r.OutOfOrder, count(r.FullyVisible, "message")+" fully visible", r.Deliveries-r.CaughtUp, r.CaughtUp))
	if r.CreatedOutside > 0 {
		t.add("    created outside", fmt.Sprint(r.CreatedOutside), "first receipts whose created_at fell outside their send (before it was sent, or after its ok): the service's clock is off; their fan-out is timed from the send's nearer end")
	}
	if r.CreatedAhead > 0 {
		t.add("    created ahead", fmt.Sprint(r.CreatedAhead), "first receipts whose created_at came after them: fan-out not measured for them (the service's clock runs ahead of chatseq's)")
	}
	if r.StreamOwing > 0 {
		t.add("    stream owing", fmt.Sprint(r.StreamOwing), "devices that settled with messages their open connection never streamed, only a sync brought (stream_completeness judges them)")
	}
	if r.PushesCut > 0 {
		t.add("    pushes cut", fmt.Sprint(r.PushesCut), "messages pushed on a connection past the most their chat can hold (twice its sends, and 10,000; 10,000 of chats the user is not in): the service pushed for ever; counted, neither recorded nor shown")
	}
	if r.CatchUpsCut > 0 {
		t.add("    catch-ups cut", fmt.Sprint(r.CatchUpsCut), "catch-ups cut short: the service paged for ever (a full page not past the one before, or more messages than the chat's sends); those devices caught those chats up no more")
	}
	t.add("    catch-up", fmt.Sprint(r.CatchUps), fmt.Sprintf("catch-ups, %s, %s, %s", count(r.GapSyncs, "gap sync"), count(r.Acks, "delivery ack"), count(r.SyncErrors, "failed sync")))
}

// DeliveryIntervalCounts is one interval of the delivery plane's
// latencies in results.json, dated by receipt since the writers started
// (the settle's receipts fall after the writers' end); a step is left out
// of an interval where no receipt was timed.
type DeliveryIntervalCounts struct {
	Start          float64          `json:"start_s"`
	Length         float64          `json:"length_s"`
	FanOut         *IntervalLatency `json:"fan_out,omitempty"`
	FullVisibility *IntervalLatency `json:"full_visibility,omitempty"`
}

// ConnectionDrop is one strike of the connection nemesis
// (--drop-connections-every) in results.json: every device was told to
// drop at start_s; the last had reconnected and caught up at end_s.
type ConnectionDrop struct {
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
}

func deliveryIntervals(ivs []bench.DeliveryInterval) []DeliveryIntervalCounts {
	out := make([]DeliveryIntervalCounts, len(ivs))
	for i, iv := range ivs {
		out[i] = DeliveryIntervalCounts{Start: iv.Start.Seconds(), Length: iv.Length.Seconds(),
			FanOut: intervalLatency(iv.FanOut), FullVisibility: intervalLatency(iv.Full)}
	}
	return out
}

// intervalLatency is h's percentiles; nil when it is empty.
func intervalLatency(h *hdrhistogram.PackedHistogram) *IntervalLatency {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	q := h.ValueAtPercentilesSlice([]float64{50, 90, 99})
	return &IntervalLatency{Count: h.TotalCount(), P50: ms(q[0]), P90: ms(q[1]), P99: ms(q[2]), Max: ms(h.Max())}
}

func connectionDrops(ws []bench.DropWindow) []ConnectionDrop {
	out := make([]ConnectionDrop, len(ws))
	for i, w := range ws {
		out[i] = ConnectionDrop{Start: w.Start.Seconds(), End: w.End.Seconds()}
	}
	return out
}
