package verify

import (
	"fmt"
	"sync"
)

// capBuffer keeps the first and the last half of what is written to it, up
// to max bytes in all: a build's first errors and a test run's final
// summary both matter, its middle rarely does.
type capBuffer struct {
	mu      sync.Mutex
	max     int
	head    []byte
	tail    []byte // ring buffer once full
	start   int    // index of the oldest byte in tail
	dropped int64
}

func newCapBuffer(max int) *capBuffer {
	return &capBuffer{max: max}
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	headMax := b.max / 2
	if len(b.head) < headMax {
		k := min(headMax-len(b.head), len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	tailMax := b.max - headMax
	for len(p) > 0 {
		if len(b.tail) < tailMax {
			k := min(tailMax-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= tailMax {
			// Only the last tailMax bytes of p survive.
			b.dropped += int64(len(b.tail) + len(p) - tailMax)
			b.tail = append(b.tail[:0], p[len(p)-tailMax:]...)
			b.start = 0
			break
		}
		k := copy(b.tail[b.start:], p)
		if k < len(p) {
			k += copy(b.tail, p[k:])
		}
		b.start = (b.start + len(p)) % tailMax
		b.dropped += int64(len(p))
		break
	}
	return n, nil
}

func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]byte, 0, len(b.head)+len(b.tail)+64)
	out = append(out, b.head...)
	if b.dropped > 0 {
		out = fmt.Appendf(out, "\n… [%d bytes of output omitted] …\n", b.dropped)
	}
	out = append(out, b.tail[b.start:]...)
	out = append(out, b.tail[:b.start]...)
	return string(out)
}
