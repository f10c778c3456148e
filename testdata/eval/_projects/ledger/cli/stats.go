package cli

import (
	"fmt"
	"io"

	"example.com/ledger/date"
	"example.com/ledger/journal"
)

// Stats summarises a journal.
type Stats struct {
	Transactions int
	Postings     int
	Accounts     int
	Commodities  int
	First, Last  date.Date
	// Days is the span from First to Last, both included.
	Days int
	// PerDay is transactions per day over the span, to two decimals.
	PerDay string
}

// Summarize computes the stats of j.
func Summarize(j *journal.Journal) Stats {
	s := Stats{Transactions: len(j.Transactions), Accounts: len(j.AccountNames())}
	commodities := map[string]bool{}
	for _, t := range j.Transactions {
		s.Postings += len(t.Postings)
		for _, p := range t.Postings {
			if p.Amount != nil {
				commodities[p.Amount.Commodity] = true
			}
		}
	}
	s.Commodities = len(commodities)
	if s.Transactions > 0 {
		s.First, s.Last = j.Transactions[0].Date, j.Transactions[s.Transactions-1].Date
		s.Days = date.DaysBetween(s.First, s.Last) + 1
		hundredths := s.Transactions * 100 / s.Days
		s.PerDay = fmt.Sprintf("%d.%02d", hundredths/100, hundredths%100)
	}
	return s
}

func stats(g global, args []string, w io.Writer) error {
	j, _, err := load(g, nil)
	if err != nil {
		return err
	}
	s := Summarize(j)
	fmt.Fprintf(w, "transactions  %d\npostings      %d\naccounts      %d\ncommodities   %d\n", s.Transactions, s.Postings, s.Accounts, s.Commodities)
	if s.Transactions > 0 {
		fmt.Fprintf(w, "span          %s .. %s (%d days)\nper day       %s\n", s.First, s.Last, s.Days, s.PerDay)
	}
	return nil
}
