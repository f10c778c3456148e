package date

import "testing"

func TestParse(t *testing.T) {
	for _, s := range []string{"2024-01-05", "2024/01/05", "2024.1.5"} {
		d, err := Parse(s)
		if err != nil || d != (Date{2024, 1, 5}) {
			t.Errorf("Parse(%q) = %v, %v", s, d, err)
		}
	}
	for _, bad := range []string{"2024-02-30", "2023-02-29", "2024-13-01", "20240105", "2024-01"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestAddDays(t *testing.T) {
	d := Date{2024, 2, 28}
	if got := d.AddDays(2); got != (Date{2024, 3, 1}) {
		t.Errorf("2024-02-28 + 2 = %v", got)
	}
	if got := (Date{2024, 1, 1}).AddDays(-1); got != (Date{2023, 12, 31}) {
		t.Errorf("2024-01-01 - 1 = %v", got)
	}
}

func TestAddMonths(t *testing.T) {
	if got := (Date{2024, 1, 31}).AddMonths(1); got != (Date{2024, 2, 29}) {
		t.Errorf("Jan 31 + 1 month = %v", got)
	}
	if got := (Date{2024, 11, 15}).AddMonths(3); got != (Date{2025, 2, 15}) {
		t.Errorf("Nov 15 + 3 months = %v", got)
	}
}

func TestWeekday(t *testing.T) {
	if got := (Date{2024, 1, 1}).Weekday(); got != 0 {
		t.Errorf("2024-01-01 is a Monday, got %d", got)
	}
	if got := (Date{2024, 3, 10}).Weekday(); got != 6 {
		t.Errorf("2024-03-10 is a Sunday, got %d", got)
	}
}
