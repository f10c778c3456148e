package agent

import "testing"

func TestUsageCost(t *testing.T) {
	u := Usage{InputTokens: 2_000_000, OutputTokens: 500_000}
	if got := u.Cost(0.15, 0.60); got < 0.6-1e-9 || got > 0.6+1e-9 { // 2×0.15 + 0.5×0.60
		t.Fatalf("Cost = %v, want 0.6", got)
	}
	if got := (Usage{}).Cost(3, 15); got != 0 {
		t.Fatalf("no usage costs %v", got)
	}
}
