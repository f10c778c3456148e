package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b int
		want int
	}{{"zero", 0, 0, 0}, {"pos", 1, 2, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Add(tc.a, tc.b); got != tc.want {
				t.Fatalf("Add(%d, %d) = %d\nwant %d\nsecond line of detail", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestLog(t *testing.T) {
	t.Log("just a log line")
}
