package money

import "testing"

func TestParseAmount(t *testing.T) {
	cases := []struct{ in, qty, commodity string }{
		{"$3.50", "3.50", "$"},
		{"-$3.50", "-3.50", "$"},
		{"$-3.50", "-3.50", "$"},
		{"3.50 EUR", "3.50", "EUR"},
		{"12", "12", ""},
		{`3 "ACME Corp"`, "3", "ACME Corp"},
	}
	for _, c := range cases {
		a, err := ParseAmount(c.in)
		if err != nil || a.Qty.String() != c.qty || a.Commodity != c.commodity {
			t.Errorf("ParseAmount(%q) = %v %q, %v", c.in, a.Qty, a.Commodity, err)
		}
	}
}

func TestFormatRoundTrip(t *testing.T) {
	for _, s := range []string{"$3.50", "-$3.50", "3.50 EUR", "12", "$234.00"} {
		a, err := ParseAmount(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Format(a); got != s {
			t.Errorf("Format(ParseAmount(%q)) = %q", s, got)
		}
	}
}

func TestMixed(t *testing.T) {
	var m Mixed
	for _, s := range []string{"$1", "2 EUR", "-$1"} {
		a, _ := ParseAmount(s)
		m.Add(a)
	}
	if got := m.String(); got != "2 EUR" {
		t.Errorf("mixed = %q", got)
	}
}
