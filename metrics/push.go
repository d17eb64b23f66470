package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chatseq/chatseq/gateway"
)

// AttachPush exports a push channel's figures (chatseq serve's /v1/push),
// read from g when scraped; feedRecords (nil: not exported) counts the
// events its topic consumer read. Each attach registers the series once:
// a process serves one push channel.
func (e *Exporter) AttachPush(g *gateway.Gateway, feedRecords func() uint64) error {
	if e == nil {
		return nil
	}
	stat := func(f func(gateway.Stats) float64) func() float64 {
		return func() float64 { return f(g.Stats()) }
	}
	cs := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "chatseq_push_devices", Help: "Devices connected to the push channel now."},
			stat(func(s gateway.Stats) float64 { return float64(s.Devices) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "chatseq_push_deliveries_total", Help: "Messages handed to devices (a message to ten devices counts ten)."},
			stat(func(s gateway.Stats) float64 { return float64(s.Deliveries) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "chatseq_push_dropped_total", Help: "Messages that never reached a device because it fell behind and was closed with 1013."},
			stat(func(s gateway.Stats) float64 { return float64(s.Dropped) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "chatseq_push_overflows_total", Help: "Devices closed with 1013 because their queue was full."},
			stat(func(s gateway.Stats) float64 { return float64(s.Overflows) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "chatseq_push_unrouted_total", Help: "Messages of a chat whose members the server could not tell, pushed to no one."},
			stat(func(s gateway.Stats) float64 { return float64(s.Unrouted) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "chatseq_push_refused_total", Help: "Push handshakes refused at the device cap."},
			stat(func(s gateway.Stats) float64 { return float64(s.Refused) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "chatseq_push_most_queued", Help: "The longest single device queue seen, in messages."},
			stat(func(s gateway.Stats) float64 { return float64(s.MostQueued) })),
	}
	if feedRecords != nil {
		cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "chatseq_push_feed_records_total", Help: "Events the push channel's consumer read from the topic."},
			func() float64 { return float64(feedRecords()) }))
	}
	for _, c := range cs {
		if err := e.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
