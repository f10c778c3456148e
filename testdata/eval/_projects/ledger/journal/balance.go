package journal

import (
	"fmt"

	"example.com/ledger/money"
)

// Balance checks that t's real postings sum to zero in every commodity,
// and so do its bracketed virtual postings.
// One real posting may leave out its amount: it gets what balances the
// others (one posting per commodity when they hold several).
func Balance(t *Transaction) error {
	var virtual money.Mixed
	for _, p := range t.Postings {
		if p.Balanced && p.Amount != nil {
			virtual.Add(*p.Amount)
		}
	}
	if !virtual.IsZero() {
		return fmt.Errorf("the bracketed virtual postings do not balance: they sum to %s", virtual.String())
	}
	var sum money.Mixed
	missing := -1
	for i, p := range t.Postings {
		if p.Virtual {
			continue
		}
		if p.Amount == nil {
			if missing >= 0 {
				return fmt.Errorf("more than one posting without an amount")
			}
			missing = i
			continue
		}
		sum.Add(*p.Amount)
	}
	if missing >= 0 {
		rest := sum.Amounts()
		if len(rest) == 0 {
			return fmt.Errorf("the posting to %s has nothing to balance", t.Postings[missing].Account)
		}
		p := t.Postings[missing]
		first := rest[0].Neg()
		t.Postings[missing].Amount = &first
		for _, a := range rest[1:] {
			n := a.Neg()
			extra := p
			extra.Amount = &n
			t.Postings = append(t.Postings, extra)
		}
		return nil
	}
	if !sum.IsZero() {
		return fmt.Errorf("the postings do not balance: they sum to %s", sum.String())
	}
	return nil
}
