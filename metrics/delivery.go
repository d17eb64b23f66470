package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DeliveryBuckets are the fan-out histograms' upper bounds in seconds:
// from a millisecond (a push on loopback) to a minute (a device that
// caught up after a long outage).
var DeliveryBuckets = []float64{
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
}

// Delivery is the delivery plane's latency as bench --receivers' devices
// see it, observed as each device receives: what a chat SRE watches
// (ADR-001's "delivery timing depends on connectivity and fanout
// latency"). A nil *Delivery observes nothing.
type Delivery struct {
	fanOut, full prometheus.Histogram
}

// Delivery is the exporter's delivery histograms, registered at the
// first call; every run of the process observes into the same two series,
// as its counters add up over every run. Nil on a nil exporter.
func (e *Exporter) Delivery() *Delivery {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.delivery == nil {
		d := &Delivery{
			fanOut: prometheus.NewHistogram(prometheus.HistogramOpts{
				Name:    "chatseq_fanout_seconds",
				Help:    "Fan-out latency: from a message's created_at (the sender's ack) to each receiving device's first receipt of it, pushed or caught up by sync (bench --receivers).",
				Buckets: DeliveryBuckets,
			}),
			full: prometheus.NewHistogram(prometheus.HistogramOpts{
				Name:    "chatseq_full_visibility_seconds",
				Help:    "Time to full visibility: from a message's created_at to the first receipt by the last device of its chat, observed once per message when that device receives it (bench --receivers).",
				Buckets: DeliveryBuckets,
			}),
		}
		e.reg.MustRegister(d.fanOut, d.full)
		e.delivery = d
	}
	return e.delivery
}

// Receipt observes one device's first receipt of a message, latency after
// its created_at; last says the device was its chat's last to receive it.
func (d *Delivery) Receipt(latency time.Duration, last bool) {
	if d == nil {
		return
	}
	s := latency.Seconds()
	d.fanOut.Observe(s)
	if last {
		d.full.Observe(s)
	}
}
