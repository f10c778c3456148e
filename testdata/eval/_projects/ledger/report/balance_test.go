package report

import (
	"strings"
	"testing"

	"example.com/ledger/journal"
	"example.com/ledger/query"
)

const book = `2024-01-05 Coffee
    expenses:food:coffee     $3.50
    assets:cash

2024-01-20 Groceries
    expenses:food:groceries  $40.25
    assets:bank

2024-02-01 Rent
    expenses:rent     $900
    assets:bank
`

func parse(t *testing.T) *journal.Journal {
	t.Helper()
	j, err := journal.Parse(strings.NewReader(book), "")
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func render(rows []BalanceRow) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Repeat("  ", r.Depth-1) + r.Account + " " + r.Amount.String() + "\n")
	}
	return b.String()
}

func TestBalanceTree(t *testing.T) {
	q, _ := query.Parse([]string{"expenses"})
	rows, total := Balance(parse(t), q, BalanceOptions{})
	want := "expenses $943.75\n  expenses:food $43.75\n    expenses:food:coffee $3.50\n    expenses:food:groceries $40.25\n  expenses:rent $900\n"
	if got := render(rows); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if total.String() != "$943.75" {
		t.Errorf("total %s", total)
	}
}

func TestBalanceDepthAndFlat(t *testing.T) {
	rows, total := Balance(parse(t), query.Query{}, BalanceOptions{Depth: 1, Flat: true})
	if got := render(rows); got != "assets -$943.75\nexpenses $943.75\n" {
		t.Errorf("got\n%s", got)
	}
	if !total.IsZero() {
		t.Errorf("total %s", total)
	}
}
