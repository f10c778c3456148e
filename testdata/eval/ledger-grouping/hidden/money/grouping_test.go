package money

import "testing"

func TestThousandsSeparators(t *testing.T) {
	for _, s := range []string{"$1,234,567.00", "$12,345", "$999", "-$1,000.50", "1,000,000 EUR", "$100,000"} {
		a, err := ParseAmount(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Format(a); got != s {
			t.Errorf("Format(ParseAmount(%q)) = %q", s, got)
		}
	}
}
