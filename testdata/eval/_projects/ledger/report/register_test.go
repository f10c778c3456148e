package report

import (
	"testing"

	"example.com/ledger/query"
)

func TestRegister(t *testing.T) {
	q, _ := query.Parse([]string{"expenses"})
	rows := Register(parse(t), q)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Running.String())
	}
	if got[0] != "$3.50" || got[1] != "$43.75" || got[2] != "$943.75" {
		t.Errorf("running totals %v", got)
	}
}
