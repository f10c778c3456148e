package date

import "testing"

func TestCenturyLeapYears(t *testing.T) {
	for _, bad := range []string{"1900-02-29", "2100-02-29", "2200-02-29"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted a day that does not exist", bad)
		}
	}
	for _, good := range []string{"2000-02-29", "2024-02-29", "2400-02-29"} {
		if _, err := Parse(good); err != nil {
			t.Errorf("Parse(%q): %v", good, err)
		}
	}
	if got := (Date{2100, 2, 28}).AddDays(1); got != (Date{2100, 3, 1}) {
		t.Errorf("2100-02-28 + 1 day = %v", got)
	}
}
