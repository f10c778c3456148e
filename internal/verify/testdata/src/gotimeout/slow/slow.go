package slow

import "time"

// Wait sleeps far longer than any test allows.
func Wait() {
	time.Sleep(time.Hour)
}
