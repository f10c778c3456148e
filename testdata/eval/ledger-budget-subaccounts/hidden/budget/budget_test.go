package budget

import (
	"strings"
	"testing"

	"example.com/ledger/date"
	"example.com/ledger/journal"
)

func TestBudgetCountsSubaccounts(t *testing.T) {
	j, err := journal.Parse(strings.NewReader(`2024-01-05 Coffee
    expenses:food:coffee     $3.50
    assets:cash

2024-01-20 Groceries
    expenses:food:groceries  $40.00
    expenses:foodtruck       $9
    assets:bank

2024-02-02 Groceries
    expenses:food            $10
    assets:bank
`), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(strings.NewReader("expenses:food  $400\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := date.ParsePeriod("2024-01")
	lines := Compare(b, j, p)
	if len(lines) != 1 || lines[0].Actual.String() != "43.50" || lines[0].Used != 10 {
		t.Errorf("%+v", lines)
	}
	p, _ = date.ParsePeriod("2024-01..2024-03")
	lines = Compare(b, j, p)
	if lines[0].Actual.String() != "53.50" || lines[0].Budget.String() != "800" {
		t.Errorf("two months: %+v", lines)
	}
}
