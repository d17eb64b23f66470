package histgen

import (
	"io"
	"testing"
)

// BenchmarkGenerate writes a 100k-persist history of each shape to
// io.Discard; b.SetBytes makes the figure MB/s of history.
func BenchmarkGenerate(b *testing.B) {
	for _, bc := range []struct {
		name string
		hot  bool
	}{{"hot", true}, {"chats", false}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := Default()
			cfg.Hot = bc.hot
			var bytes int64
			for b.Loop() {
				res, err := Generate(io.Discard, cfg)
				if err != nil {
					b.Fatal(err)
				}
				bytes = res.Bytes
			}
			b.SetBytes(bytes)
		})
	}
}
