package journal

import (
	"strings"
	"testing"
)

func TestTabSeparatedPostings(t *testing.T) {
	in := "2024-01-05 Coffee\n\texpenses:food\t$3.50\n\tassets:cash\n\n2024-01-06 Tea\n\texpenses:food\t\t$2 ; hot\n\tassets:cash  \t-$2\n"
	j, err := Parse(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	p := j.Transactions[0].Postings
	if p[0].Account != "expenses:food" || p[0].Amount == nil || p[0].Amount.Qty.String() != "3.50" {
		t.Errorf("first posting %+v", p[0])
	}
	p = j.Transactions[1].Postings
	if p[0].Account != "expenses:food" || p[1].Account != "assets:cash" || p[0].Comment != "hot" {
		t.Errorf("second transaction %+v", p)
	}
}
