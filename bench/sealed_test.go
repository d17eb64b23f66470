package bench

import (
	"bytes"
	"compress/flate"
	"math/rand/v2"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// A sealed histogram opens to the same buckets and counts: the same
// HdrHistogram encoding, the same figures; values at the geometry's ends
// and counts past 32 bits included.
func TestSealedHistogramOpensAsItWas(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	rounds := 200
	if raceEnabled {
		rounds = 40
	}
	for round := range rounds {
		h := NewIntervalHistogram()
		switch round {
		case 0: // empty
		case 1:
			_ = h.RecordValues(1, 1)
			_ = h.RecordValues(histHighest, 1<<40)
		default:
			for range r.IntN(5000) {
				_ = h.RecordValue(1 + int64(r.ExpFloat64()*float64(r.Int64N(1e9)+1)))
			}
		}
		got, err := openHistogram(sealHistogram(h))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		ge, _ := got.Encode()
		we, _ := h.Encode()
		if !bytes.Equal(ge, we) || got.TotalCount() != h.TotalCount() || got.Max() != h.Max() || got.Min() != h.Min() || got.ValueAtPercentile(99) != h.ValueAtPercentile(99) {
			t.Fatalf("round %d: %d values sealed, %d opened, or the figures differ", round, h.TotalCount(), got.TotalCount())
		}
	}
}

// What sealHistogram cannot have written is an error, never a panic or a
// histogram.
func TestOpenHistogramRefusesWhatWasNotSealed(t *testing.T) {
	for _, raw := range [][]byte{
		{0x00, 0x01},                   // a bucket that does not move on
		{0x01, 0x00},                   // a count of zero
		{0x01},                         // a bucket without its count
		{0x80},                         // a cut-short varint
		{0xff, 0xff, 0xff, 0x0f, 0x01}, // past the last bucket
	} {
		if h, err := openHistogram(deflated(t, raw)); err == nil {
			t.Errorf("% x: opened as %d values, want an error", raw, h.TotalCount())
		}
	}
	if _, err := openHistogram([]byte("not deflate")); err == nil {
		t.Error("a sealed histogram that is not deflate opened")
	}
}

func deflated(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.HuffmanOnly)
	if _, err := w.Write(raw); err != nil || w.Close() != nil {
		t.Fatal("deflate failed")
	}
	return b.Bytes()
}

func FuzzOpenHistogram(f *testing.F) {
	h := NewIntervalHistogram()
	_ = h.RecordValues(1000, 3)
	_ = h.RecordValues(2_000_000, 5)
	f.Add(sealHistogram(h))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := openHistogram(b)
		if err != nil {
			return
		}
		again, err := openHistogram(sealHistogram(h))
		if err != nil {
			t.Fatal(err)
		}
		ge, _ := again.Encode()
		he, _ := h.Encode()
		if !bytes.Equal(ge, he) {
			t.Fatalf("% x opened, sealed and opened again to other buckets", b)
		}
	})
}

// BenchmarkSealInterval seals one busy interval's step histogram: the
// run's own encoding and HdrHistogram's, side by side.
func BenchmarkSealInterval(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	h := NewIntervalHistogram()
	for range 20_000 {
		_ = h.RecordValue(1 + int64(r.ExpFloat64()*200_000))
	}
	for _, k := range []struct {
		name string
		seal func(*hdrhistogram.PackedHistogram) []byte
	}{
		{"run", sealHistogram},
		{"hdr", func(h *hdrhistogram.PackedHistogram) []byte { e, _ := h.Encode(); return e }},
	} {
		b.Run(k.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				n = len(k.seal(h))
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
}
