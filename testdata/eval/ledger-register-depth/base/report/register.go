package report

import (
	"example.com/ledger/date"
	"example.com/ledger/journal"
	"example.com/ledger/money"
	"example.com/ledger/query"
)

// RegisterRow is one matching posting with the running total of the
// matching postings so far.
type RegisterRow struct {
	Date        date.Date
	Description string
	Account     string
	Amount      money.Amount
	Running     money.Mixed
}

// Register lists the matching postings in date order with a running
// total.
func Register(j *journal.Journal, q query.Query) []RegisterRow {
	var rows []RegisterRow
	var running money.Mixed
	for _, t := range j.Transactions {
		for _, p := range t.Postings {
			if p.Amount == nil || !q.Match(t, p) {
				continue
			}
			running.Add(*p.Amount)
			var snapshot money.Mixed
			snapshot.AddMixed(running)
			rows = append(rows, RegisterRow{Date: t.Date, Description: t.Description, Account: p.Account, Amount: *p.Amount, Running: snapshot})
		}
	}
	return rows
}
