// Package query filters postings: "acct:expenses desc:coffee date:2024-01
// amt:>10 status:* not:acct:food". Terms of different kinds must all
// match; terms of one kind match when any of them does.
package query

import (
	"fmt"
	"regexp"
	"strings"

	"example.com/ledger/date"
	"example.com/ledger/money"
)

// Query is a parsed query; the zero Query matches everything.
type Query struct {
	Terms []Term
}

// Term is one condition.
type Term struct {
	Kind   string // acct, desc, date, amt, status, tag
	Negate bool
	re     *regexp.Regexp
	period date.Period
	op     string
	amount money.Decimal
	status string
	tag    string
}

// Parse reads a query from words; a bare word means acct:WORD.
func Parse(words []string) (Query, error) {
	var q Query
	for _, w := range words {
		t, err := parseTerm(w)
		if err != nil {
			return Query{}, err
		}
		q.Terms = append(q.Terms, t)
	}
	return q, nil
}

func parseTerm(w string) (Term, error) {
	var t Term
	if rest, ok := strings.CutPrefix(w, "not:"); ok {
		t.Negate, w = true, rest
	}
	kind, arg, ok := strings.Cut(w, ":")
	if !ok || !knownKind(kind) {
		kind, arg = "acct", w
	}
	t.Kind = kind
	var err error
	switch kind {
	case "acct", "desc":
		t.re, err = regexp.Compile("(?i)" + arg)
	case "date":
		t.period, err = date.ParsePeriod(arg)
	case "amt":
		err = t.parseAmount(arg)
	case "status":
		if arg != "*" && arg != "!" && arg != "" {
			err = fmt.Errorf("status wants *, ! or nothing")
		}
		t.status = arg
	case "tag":
		name, value, hasValue := strings.Cut(arg, "=")
		t.tag = name
		if hasValue {
			t.re, err = regexp.Compile("(?i)" + value)
		}
	}
	if err != nil {
		return Term{}, fmt.Errorf("query %q: %v", w, err)
	}
	return t, nil
}

func knownKind(k string) bool {
	switch k {
	case "acct", "desc", "date", "amt", "status", "tag":
		return true
	}
	return false
}

// parseAmount reads ">10", "<=-5", "=3.50" or "10" (equal).
func (t *Term) parseAmount(arg string) error {
	for _, op := range []string{">=", "<=", ">", "<", "="} {
		if rest, ok := strings.CutPrefix(arg, op); ok {
			t.op, arg = op, rest
			break
		}
	}
	if t.op == "" {
		t.op = "="
	}
	d, err := money.ParseDecimal(arg)
	t.amount = d
	return err
}
