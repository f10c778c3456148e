package query

import (
	"strings"
	"testing"

	"example.com/ledger/journal"
)

const projects = `2024-03-01 Conference ; trip: berlin
    expenses:travel     $400 ; project: alpha
    expenses:food       $50
    assets:bank
`

func TestTagsOnPostings(t *testing.T) {
	j, err := journal.Parse(strings.NewReader(projects), "")
	if err != nil {
		t.Fatal(err)
	}
	count := func(words ...string) []string {
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
	if got := count("tag:project"); len(got) != 1 || got[0] != "expenses:travel" {
		t.Errorf("tag:project matches %v", got)
	}
	if got := count("tag:trip"); len(got) != 3 {
		t.Errorf("tag:trip (on the transaction) matches %v", got)
	}
	if got := count("not:tag:project"); len(got) != 2 {
		t.Errorf("not:tag:project matches %v", got)
	}
}
