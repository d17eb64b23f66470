package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the endpoint serves the metrics.
const Path = "/metrics"

// Serve listens on addr (host:port; port 0 picks one) and serves g at
// /metrics in Prometheus' text format or OpenMetrics, as the scraper asks,
// until ctx ends. It returns the address it listens on.
func Serve(ctx context.Context, addr string, g prometheus.Gatherer) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ln.Close()
		}
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return ln.Addr().String(), nil
}

// Serve serves the exporter's metrics at addr until ctx ends (see Serve).
func (e *Exporter) Serve(ctx context.Context, addr string) (string, error) {
	return Serve(ctx, addr, e.Gatherer())
}
