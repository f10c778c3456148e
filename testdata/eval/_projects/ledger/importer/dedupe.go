package importer

import (
	"fmt"
	"io"
	"strings"

	"example.com/ledger/journal"
	"example.com/ledger/money"
)

// key identifies a bank line: its date and the amount on the bank's side,
// however either writes it ($2,000.00 or 2000).
func key(d string, a money.Amount) string {
	return d + " " + a.Qty.Canonical().String() + " " + a.Commodity
}

// New drops the records the journal already has: a transaction on the
// same date with a posting to bankAccount of the same amount. Each
// journal posting accounts for one record only.
func New(recs []Record, j *journal.Journal, bankAccount string) []Record {
	seen := map[string]int{}
	for _, t := range j.Transactions {
		for _, p := range t.Postings {
			if p.Account == bankAccount && p.Amount != nil {
				seen[key(t.Date.String(), *p.Amount)]++
			}
		}
	}
	var out []Record
	for _, r := range recs {
		k := key(r.Date.String(), r.Amount)
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, r)
	}
	return out
}

// Write writes records as journal transactions between bankAccount and
// the account the rules pick.
func Write(w io.Writer, recs []Record, rules *Rules, bankAccount string) error {
	for _, r := range recs {
		acct, desc := rules.Apply(r.Description)
		other := r.Amount.Neg()
		width := max(len(acct), len(bankAccount)) + 4
		_, err := fmt.Fprintf(w, "%s %s\n    %s%s\n    %s%s\n\n", r.Date, desc,
			pad(acct, width), money.Format(other), pad(bankAccount, width), money.Format(r.Amount))
		if err != nil {
			return err
		}
	}
	return nil
}

func pad(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
