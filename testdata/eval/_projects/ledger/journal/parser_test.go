package journal

import (
	"strings"
	"testing"
)

const sample = `; a sample journal
account assets
account expenses
account income
alias cash = assets:cash

2024-01-05 * (1001) Coffee shop ; morning
    expenses:food:coffee     $3.50
    cash

2024-01-02 Salary
    assets:bank:checking    $2,000.00
    income:salary          -$2,000.00
`

func TestParse(t *testing.T) {
	j, err := Parse(strings.NewReader(sample), "sample.journal")
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Transactions) != 2 {
		t.Fatalf("%d transactions", len(j.Transactions))
	}
	salary, coffee := j.Transactions[0], j.Transactions[1]
	if salary.Description != "Salary" || coffee.Description != "Coffee shop" {
		t.Errorf("not sorted by date: %q, %q", salary.Description, coffee.Description)
	}
	if coffee.Status != Cleared || coffee.Code != "1001" || coffee.Comment != "morning" {
		t.Errorf("header: %+v", coffee)
	}
	if got := coffee.Postings[1].Account; got != "assets:cash" {
		t.Errorf("alias: %q", got)
	}
	if got := coffee.Postings[1].Amount.Qty.String(); got != "-3.50" {
		t.Errorf("inferred amount %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"2024-01-05 x\n    a  $1\n    b  $2\n": "do not balance",
		"2024-02-30 x\n    a  $1\n    b\n":     "no such day",
		"    a  $1\n":                          "outside a transaction",
		"frobnicate\n":                         "unknown directive",
		"2024-01-05 x\n    a\n    b\n":         "more than one posting without an amount",
	}
	for in, want := range cases {
		_, err := Parse(strings.NewReader(in), "t.journal")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want %q", in, err, want)
		}
	}
}
