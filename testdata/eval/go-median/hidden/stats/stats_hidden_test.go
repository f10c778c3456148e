package stats

import "testing"

func TestMedianHidden(t *testing.T) {
	in := []float64{3, 1, 2}
	if got := Median(in); got != 2 {
		t.Errorf("Median(3,1,2) = %v", got)
	}
	if in[0] != 3 || in[1] != 1 {
		t.Errorf("Median reordered its input: %v", in)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median(4,1,3,2) = %v", got)
	}
	if got := Median(nil); got != 0 {
		t.Errorf("Median(nil) = %v", got)
	}
}
