package report

import (
	"example.com/ledger/account"
	"example.com/ledger/date"
	"example.com/ledger/journal"
	"example.com/ledger/money"
	"example.com/ledger/query"
)

// Periodic is a balance report with a column per interval.
type Periodic struct {
	Columns  []string // interval labels
	Accounts []string
	// Cells[i][k] is account i's change during interval k.
	Cells  [][]money.Mixed
	Totals []money.Mixed
}

// PeriodicBalance sums the matching postings by account (clipped to depth
// levels when depth > 0) and interval, over the dates the journal spans.
func PeriodicBalance(j *journal.Journal, q query.Query, iv date.Interval, depth int) Periodic {
	var r Periodic
	if len(j.Transactions) == 0 {
		return r
	}
	first, last := j.Transactions[0].Date, j.Transactions[len(j.Transactions)-1].Date
	starts := iv.Split(date.Period{Start: first, End: last.AddDays(1)})
	index := map[date.Date]int{}
	for k, s := range starts {
		index[s] = k
		r.Columns = append(r.Columns, iv.Label(s))
	}
	cells := map[string][]money.Mixed{}
	r.Totals = make([]money.Mixed, len(starts))
	for _, t := range j.Transactions {
		k, ok := index[iv.Start(t.Date)]
		if !ok {
			continue
		}
		for _, p := range t.Postings {
			if p.Amount == nil || !q.Match(t, p) {
				continue
			}
			name := account.Clip(p.Account, depth)
			if cells[name] == nil {
				cells[name] = make([]money.Mixed, len(starts))
			}
			cells[name][k].Add(*p.Amount)
			r.Totals[k].Add(*p.Amount)
		}
	}
	r.Accounts = sortedKeys(cells)
	for _, a := range r.Accounts {
		r.Cells = append(r.Cells, cells[a])
	}
	return r
}
