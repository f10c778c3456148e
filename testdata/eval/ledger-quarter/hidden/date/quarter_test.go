package date

import "testing"

func TestQuarterOfEveryMonth(t *testing.T) {
	for m := 1; m <= 12; m++ {
		want := Date{2024, (m-1)/3*3 + 1, 1}
		if got := Quarterly.Start(Date{2024, m, 15}); got != want {
			t.Errorf("the quarter of 2024-%02d-15 starts %v, want %v", m, got, want)
		}
	}
	if got := Quarterly.Label(Quarterly.Start(Date{2024, 12, 31})); got != "2024q4" {
		t.Errorf("2024-12-31 is in %s", got)
	}
	p, _ := ParsePeriod("2024")
	if got := len(Quarterly.Split(p)); got != 4 {
		t.Errorf("2024 has %d quarters", got)
	}
}
