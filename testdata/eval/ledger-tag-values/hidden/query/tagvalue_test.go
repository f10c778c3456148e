package query

import (
	"strings"
	"testing"

	"example.com/ledger/journal"
)

const trips = `2024-03-01 Hotel ; trip: Paris
    expenses:travel     $300
    assets:bank

2024-04-01 Hotel ; trip: Rome, receipt:
    expenses:travel     $200
    assets:bank
`

func tripMatches(t *testing.T, words ...string) int {
	t.Helper()
	j, err := journal.Parse(strings.NewReader(trips), "")
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(words)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tx := range j.Transactions {
		for _, p := range tx.Postings {
			if q.Match(tx, p) {
				n++
			}
		}
	}
	return n
}

func TestTagValues(t *testing.T) {
	cases := []struct {
		words []string
		want  int
	}{
		{[]string{"tag:trip"}, 4},
		{[]string{"tag:trip=paris"}, 2},
		{[]string{"tag:trip=Rome", "expenses"}, 1},
		{[]string{"tag:trip=london"}, 0},
		{[]string{"not:tag:trip=paris"}, 2},
		{[]string{"tag:receipt"}, 2},
	}
	for _, c := range cases {
		if got := tripMatches(t, c.words...); got != c.want {
			t.Errorf("%v matches %d postings, want %d", c.words, got, c.want)
		}
	}
}
