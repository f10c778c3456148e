package boom

import "testing"

func TestPanic(t *testing.T) {
	var x T
	x.Set("a")
}
