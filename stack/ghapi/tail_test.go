package ghapi

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestTail: whatever the sizes of the writes, tail holds the last max
// bytes written, and never more than max bytes of log.
func TestTail(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		limit := 1 + r.IntN(64)
		end := &tail{max: limit}
		var all []byte
		for w := r.IntN(20); w >= 0; w-- {
			p := bytes.Repeat([]byte{byte('a' + r.IntN(26))}, r.IntN(3*limit))
			for i := range p {
				p[i] += byte(i % 3)
			}
			if n, err := end.Write(p); n != len(p) || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", len(p), n, err)
			}
			all = append(all, p...)
		}
		want := all[max(0, len(all)-limit):]
		if !bytes.Equal(end.buf, want) {
			t.Fatalf("max %d: tail holds %q, want %q", limit, end.buf, want)
		}
		if cap(end.buf) > 4*limit+64 && len(all) > 0 {
			t.Errorf("max %d: tail's buffer grew to %d bytes", limit, cap(end.buf))
		}
	}
}
