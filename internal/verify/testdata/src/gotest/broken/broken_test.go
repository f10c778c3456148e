package broken

import "testing"

func TestF(t *testing.T) {
	var s string = F()
	_ = s
}
