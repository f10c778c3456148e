// Package budget compares what was spent with a monthly budget.
package budget

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"example.com/ledger/account"
	"example.com/ledger/date"
	"example.com/ledger/journal"
	"example.com/ledger/money"
)

// Budget is a monthly amount per account ("expenses:food  $400").
type Budget struct {
	Accounts []string
	Monthly  map[string]money.Amount
}

// Parse reads one "ACCOUNT  AMOUNT" per line; # starts a comment.
func Parse(r io.Reader) (*Budget, error) {
	b := &Budget{Monthly: map[string]money.Amount{}}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		i := strings.Index(text, "  ")
		if i < 0 {
			return nil, fmt.Errorf("budget line %d: want ACCOUNT  AMOUNT (two spaces between)", line)
		}
		name := account.Normalize(text[:i])
		a, err := money.ParseAmount(text[i:])
		if err != nil {
			return nil, fmt.Errorf("budget line %d: %v", line, err)
		}
		if _, dup := b.Monthly[name]; dup {
			return nil, fmt.Errorf("budget line %d: %s twice", line, name)
		}
		b.Accounts = append(b.Accounts, name)
		b.Monthly[name] = a
	}
	return b, sc.Err()
}

// Line is one budgeted account over a period.
type Line struct {
	Account string
	Budget  money.Decimal
	Actual  money.Decimal
	// Used is Actual as a percentage of Budget, rounded down.
	Used int64
}

// Compare sums the postings of each budgeted account (and its
// sub-accounts) in p, against the monthly budget times the months p
// spans.
func Compare(b *Budget, j *journal.Journal, p date.Period) []Line {
	months := int64(0)
	for d := p.Start; d.Before(p.End); d = d.AddMonths(1) {
		months++
	}
	var out []Line
	for _, name := range b.Accounts {
		want := b.Monthly[name]
		l := Line{Account: name, Budget: want.Qty.MulInt(months)}
		for _, t := range j.Transactions {
			if !p.Contains(t.Date) {
				continue
			}
			for _, ps := range t.Postings {
				if ps.Amount != nil && ps.Amount.Commodity == want.Commodity && account.IsUnder(ps.Account, name) {
					l.Actual = l.Actual.Add(ps.Amount.Qty)
				}
			}
		}
		if !l.Budget.IsZero() {
			l.Used = percent(l.Actual, l.Budget)
		}
		out = append(out, l)
	}
	return out
}

// percent is 100·a/b rounded toward zero.
func percent(a, b money.Decimal) int64 {
	s := max(a.Scale(), b.Scale())
	au := a.Units()
	for i := a.Scale(); i < s; i++ {
		au *= 10
	}
	bu := b.Units()
	for i := b.Scale(); i < s; i++ {
		bu *= 10
	}
	return 100 * au / bu
}
