package query

import (
	"strings"
	"testing"

	"example.com/ledger/journal"
)

const book = `2024-01-05 * Coffee shop
    expenses:food:coffee     $3.50
    assets:cash

2024-02-01 ! Rent ; recurring:
    expenses:rent     $900
    assets:bank
`

func matches(t *testing.T, words ...string) []string {
	t.Helper()
	j, err := journal.Parse(strings.NewReader(book), "")
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(words)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tx := range j.Transactions {
		for _, p := range tx.Postings {
			if q.Match(tx, p) {
				out = append(out, p.Account)
			}
		}
	}
	return out
}

func TestQueries(t *testing.T) {
	cases := []struct {
		words []string
		want  string
	}{
		{[]string{"expenses"}, "expenses:food:coffee expenses:rent"},
		{[]string{"acct:food", "acct:rent"}, "expenses:food:coffee expenses:rent"},
		{[]string{"expenses", "date:2024-02"}, "expenses:rent"},
		{[]string{"not:acct:expenses"}, "assets:cash assets:bank"},
		{[]string{"amt:>100"}, "expenses:rent"},
		{[]string{"status:*"}, "expenses:food:coffee assets:cash"},
		{[]string{"tag:recurring", "expenses"}, "expenses:rent"},
		{[]string{"desc:coffee"}, "expenses:food:coffee assets:cash"},
	}
	for _, c := range cases {
		if got := strings.Join(matches(t, c.words...), " "); got != c.want {
			t.Errorf("%v: %q, want %q", c.words, got, c.want)
		}
	}
}

func TestBadQuery(t *testing.T) {
	for _, w := range []string{"date:2024-13", "amt:>x", "status:?", "acct:("} {
		if _, err := Parse([]string{w}); err == nil {
			t.Errorf("%q accepted", w)
		}
	}
}
