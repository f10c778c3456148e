package report

import (
	"strings"
	"testing"

	"example.com/ledger/date"
	"example.com/ledger/query"
)

func TestPeriodicKeepsTheLastMonth(t *testing.T) {
	// book's last transaction is on 2024-02-01.
	r := PeriodicBalance(parse(t), query.Query{}, date.Monthly, 1)
	if got := strings.Join(r.Columns, " "); got != "2024-01 2024-02" {
		t.Fatalf("columns %q", got)
	}
	for i, a := range r.Accounts {
		if a == "expenses" {
			if got := r.Cells[i][1].String(); got != "$900" {
				t.Errorf("expenses in 2024-02: %s", got)
			}
		}
	}
}

func TestPeriodicOneDayJournal(t *testing.T) {
	j := parse(t)
	j.Transactions = j.Transactions[:1]
	r := PeriodicBalance(j, query.Query{}, date.Monthly, 0)
	if len(r.Columns) != 1 || len(r.Accounts) != 2 {
		t.Errorf("columns %v, accounts %v", r.Columns, r.Accounts)
	}
}
