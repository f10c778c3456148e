package journal

import (
	"strings"
	"testing"
)

func TestBracketedVirtualPostings(t *testing.T) {
	in := `2024-03-01 Groceries
    expenses:food        $40
    assets:bank         -$40
    [budget:food]       -$40
    [budget:available]   $40
`
	j, err := Parse(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	ps := j.Transactions[0].Postings
	if ps[2].Account != "budget:food" || !ps[2].Virtual || ps[3].Account != "budget:available" {
		t.Errorf("bracketed postings: %+v %+v", ps[2], ps[3])
	}
	if ps[0].Virtual {
		t.Errorf("real posting marked virtual")
	}

	unbalanced := "2024-03-01 Groceries\n    expenses:food  $40\n    assets:bank\n    [budget:food]  -$40\n    [budget:available]  $30\n"
	if _, err := Parse(strings.NewReader(unbalanced), ""); err == nil {
		t.Error("bracketed postings that sum to -$10 accepted")
	}
	elided := "2024-03-01 Groceries\n    expenses:food  $40\n    assets:bank\n    [budget:food]  -$40\n    [budget:available]  $40\n"
	j, err = Parse(strings.NewReader(elided), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Transactions[0].Postings[1].Amount.Qty.String(); got != "-40" {
		t.Errorf("assets:bank inferred as %s", got)
	}
}
