package bench

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// sealHistogram is h as a sealed interval keeps it: each populated bucket
// (bucketOf) as the distance from the one before and its count, uvarints,
// Huffman-coded. A histogram of the run's geometry is its buckets' counts
// and nothing else (min, max, mean and percentiles are read from them), so
// this holds all of it. HdrHistogram's own encoding (Encode) is zlib at
// its best compression with a new compressor each time, then base64: ten
// times a second for every step of a short run, that was 3% of a run's
// CPU; this is several times faster and no larger (BenchmarkSealInterval).
func sealHistogram(h *hdrhistogram.PackedHistogram) []byte {
	s := sealers.Get().(*sealer)
	defer sealers.Put(s)
	s.raw = s.raw[:0]
	prev := int32(-1)
	h.ForEachBucket(func(value, count int64) bool {
		i := bucketOf(value)
		s.raw = binary.AppendUvarint(s.raw, uint64(i-prev))
		s.raw = binary.AppendUvarint(s.raw, uint64(count))
		prev = i
		return true
	})
	s.out.Reset()
	s.w.Reset(&s.out)
	_, _ = s.w.Write(s.raw) // to a bytes.Buffer: never fails
	_ = s.w.Close()
	return bytes.Clone(s.out.Bytes())
}

// sealer is a compressor and its buffers: a new flate writer allocates
// hundreds of kilobytes.
type sealer struct {
	raw []byte
	out bytes.Buffer
	w   *flate.Writer
}

var sealers = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.HuffmanOnly) // a valid level: no error
	return &sealer{w: w}
}}

// openHistogram is the histogram sealHistogram sealed, or errSealed for
// bytes it did not write. It inflates the whole into a buffer first and
// reads the pairs from there (through a bufio.Reader, a byte at a time,
// reading was half of opening a long run's intervals), never more than
// the pairs of every bucket could take.
func openHistogram(sealed []byte) (*hdrhistogram.PackedHistogram, error) {
	o := openers.Get().(*opener)
	defer openers.Put(o)
	o.src.Reset(sealed)
	if err := o.inflate.(flate.Resetter).Reset(&o.src, nil); err != nil {
		return nil, errSealed
	}
	o.raw.Reset()
	if _, err := o.raw.ReadFrom(io.LimitReader(o.inflate, int64(maxSealedBytes)+1)); err != nil || o.raw.Len() > maxSealedBytes {
		return nil, errSealed
	}
	raw := o.raw.Bytes()
	h := NewIntervalHistogram()
	i := int64(-1)
	for len(raw) > 0 {
		d, n := binary.Uvarint(raw)
		if n <= 0 || d == 0 || d > uint64(bucketsLen) {
			return nil, errSealed
		}
		raw = raw[n:]
		count, n := binary.Uvarint(raw)
		if n <= 0 || count == 0 || count > 1<<62 {
			return nil, errSealed
		}
		raw = raw[n:]
		if i += int64(d); i >= int64(bucketsLen) {
			return nil, errSealed
		}
		if err := h.RecordValues(bucketValue(int32(i)), int64(count)); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// maxSealedBytes bounds what a sealed histogram inflates to: a pair of
// uvarints for every bucket.
var maxSealedBytes = 2 * binary.MaxVarintLen64 * bucketsLen

// opener is openHistogram's reused inflater and buffer.
type opener struct {
	src     bytes.Reader
	inflate io.ReadCloser
	raw     bytes.Buffer
}

var openers = sync.Pool{New: func() any { return &opener{inflate: flate.NewReader(nil)} }}

var errSealed = errors.New("bench: a sealed histogram that sealHistogram did not write")
