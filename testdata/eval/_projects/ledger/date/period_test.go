package date

import "testing"

func TestParsePeriod(t *testing.T) {
	cases := map[string]Period{
		"2024":             {Date{2024, 1, 1}, Date{2025, 1, 1}},
		"2024-03":          {Date{2024, 3, 1}, Date{2024, 4, 1}},
		"2024q4":           {Date{2024, 10, 1}, Date{2025, 1, 1}},
		"2024-01..2024-04": {Date{2024, 1, 1}, Date{2024, 4, 1}},
		"..2024-04":        {Date{}, Date{2024, 4, 1}},
	}
	for in, want := range cases {
		got, err := ParsePeriod(in)
		if err != nil || got != want {
			t.Errorf("ParsePeriod(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestContains(t *testing.T) {
	p, _ := ParsePeriod("2024-03")
	if !p.Contains(Date{2024, 3, 1}) || !p.Contains(Date{2024, 3, 31}) || p.Contains(Date{2024, 4, 1}) {
		t.Error("2024-03 contains March, not April")
	}
}

func TestIntervalStart(t *testing.T) {
	d := Date{2024, 5, 17}
	if got := Quarterly.Start(d); got != (Date{2024, 4, 1}) {
		t.Errorf("quarter of %v starts %v", d, got)
	}
	if got := Weekly.Start(Date{2024, 3, 10}); got != (Date{2024, 3, 4}) {
		t.Errorf("week of 2024-03-10 starts %v", got)
	}
}
