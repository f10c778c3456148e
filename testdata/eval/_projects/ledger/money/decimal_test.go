package money

import "testing"

func TestParseDecimal(t *testing.T) {
	for in, want := range map[string]string{"12": "12", "-3.50": "-3.50", "+12.125": "12.125", "1,234.5": "1234.5"} {
		d, err := ParseDecimal(in)
		if err != nil || d.String() != want {
			t.Errorf("ParseDecimal(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "1.2.3", "-"} {
		if _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) accepted", bad)
		}
	}
}

func TestDecimalArithmetic(t *testing.T) {
	a, _ := ParseDecimal("11.5")
	b, _ := ParseDecimal("10.25")
	if got := a.Add(b).String(); got != "21.75" {
		t.Errorf("11.5+10.25 = %s", got)
	}
	if got := a.Sub(b).String(); got != "1.25" {
		t.Errorf("11.5-10.25 = %s", got)
	}
	if a.Cmp(b) != 1 || b.Cmp(a) != -1 || a.Cmp(a) != 0 {
		t.Error("Cmp")
	}
	if got := b.Neg().Abs().String(); got != "10.25" {
		t.Errorf("abs = %s", got)
	}
}
