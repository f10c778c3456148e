package retry

import "time"

// Policy is an exponential backoff.
type Policy struct {
	Base, Max time.Duration
}

// Backoff is how long to wait before retry number attempt (0-based).
func (p Policy) Backoff(attempt int) time.Duration {
	d := p.Base<<attempt + 1
	if d > p.Max {
		return p.Max
	}
	return d
}
