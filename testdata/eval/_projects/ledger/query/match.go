package query

import (
	"example.com/ledger/journal"
)

// Match reports whether the posting p of transaction t matches q.
func (q Query) Match(t *journal.Transaction, p journal.Posting) bool {
	byKind := map[string][]Term{}
	var kinds []string
	for _, term := range q.Terms {
		if _, ok := byKind[term.Kind]; !ok {
			kinds = append(kinds, term.Kind)
		}
		byKind[term.Kind] = append(byKind[term.Kind], term)
	}
	for _, k := range kinds {
		any := false
		for _, term := range byKind[k] {
			if term.match(t, p) {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	return true
}

func (term Term) match(t *journal.Transaction, p journal.Posting) bool {
	var ok bool
	switch term.Kind {
	case "acct":
		ok = term.re.MatchString(p.Account)
	case "desc":
		ok = term.re.MatchString(t.Description)
	case "date":
		ok = term.period.Contains(t.Date)
	case "amt":
		ok = p.Amount != nil && compare(p.Amount.Qty.Cmp(term.amount), term.op)
	case "status":
		switch term.status {
		case "*":
			ok = t.Status == journal.Cleared
		case "!":
			ok = t.Status == journal.Pending
		default:
			ok = t.Status == journal.Unmarked
		}
	case "tag":
		ok = term.matchTag(t.Tags) || term.matchTag(p.Tags)
	}
	return ok != term.Negate
}

// matchTag reports whether tags has the term's tag, with a value its
// pattern matches when it has one (tag:trip=paris).
func (term Term) matchTag(tags map[string]string) bool {
	v, has := tags[term.tag]
	return has && (term.re == nil || term.re.MatchString(v))
}

func compare(c int, op string) bool {
	switch op {
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	}
	return c == 0
}
