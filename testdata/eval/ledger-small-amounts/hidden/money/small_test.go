package money

import "testing"

func TestAmountsBelowOne(t *testing.T) {
	for _, s := range []string{"$0.50", "$0.05", "-$0.07", "0.125 EUR", "0.00000001 BTC"} {
		a, err := ParseAmount(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Format(a); got != s {
			t.Errorf("Format(ParseAmount(%q)) = %q", s, got)
		}
	}
	d, _ := ParseDecimal(".5")
	if d.String() != "0.5" {
		t.Errorf(".5 reads back as %q", d.String())
	}
}
