package proc

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/textcut"
)

// Capper is an io.Writer that keeps the first and the last half of limit
// bytes of a stream: a build's first errors and a test run's final summary
// both matter, its middle rarely does. It is safe for concurrent writes.
type Capper struct {
	mu    sync.Mutex
	half  int
	head  []byte
	tail  []byte // ring buffer of the last half bytes once full
	pos   int    // index of the oldest byte in tail once it is full
	total int64
}

// NewCapper returns a Capper that keeps at most limit bytes (at least 2).
func NewCapper(limit int) *Capper {
	return &Capper{half: max(limit, 2) / 2}
}

// Write keeps what fits and never fails.
func (c *Capper) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= c.half {
		c.tail = append(c.tail[:0], p[len(p)-c.half:]...)
		c.pos = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(c.tail) < c.half {
			k := min(c.half-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(c.tail[c.pos:], p)
		c.pos = (c.pos + k) % c.half
		p = p[k:]
	}
	return n, nil
}

// String is the kept output as valid UTF-8. When the middle was dropped,
// a line "[... N bytes cut ...]" stands in its place, N counting every
// byte not shown; the cut never splits a character.
func (c *Capper) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := append(append([]byte(nil), c.tail[c.pos:]...), c.tail[:c.pos]...)
	if int64(len(c.head)+len(tail)) == c.total {
		return strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD")
	}
	head := c.head
	for i := 0; i < utf8.UTFMax-1 && len(head) > 0; i++ {
		if r, size := utf8.DecodeLastRune(head); r != utf8.RuneError || size > 1 {
			break
		}
		head = head[:len(head)-1]
	}
	tail = tail[textcut.Ceil(tail, 0):]
	cut := c.total - int64(len(head)+len(tail))
	return strings.ToValidUTF8(fmt.Sprintf("%s\n[... %d bytes cut ...]\n%s", head, cut, tail), "\uFFFD")
}
