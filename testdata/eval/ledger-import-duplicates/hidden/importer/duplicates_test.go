package importer

import (
	"strings"
	"testing"

	"example.com/ledger/journal"
)

const booked = `2024-01-31 Salary
    assets:bank    $2,000.00
    income:salary

2024-02-03 Coffee
    expenses:food    $3.5
    assets:bank
`

func TestNewSkipsWhatTheJournalHas(t *testing.T) {
	j, err := journal.Parse(strings.NewReader(booked), "")
	if err != nil {
		t.Fatal(err)
	}
	csv := "Date,Text,Amount\n2024-01-31,SALARY ACME,2000\n2024-02-03,CORNER COFFEE,-3.50\n2024-02-03,CORNER COFFEE,-3.50\n2024-02-04,RENT,-900\n"
	recs, err := ReadCSV(strings.NewReader(csv), Columns{Date: 0, Description: 1, Amount: 2, Skip: 1, Commodity: "$"})
	if err != nil {
		t.Fatal(err)
	}
	fresh := New(recs, j, "assets:bank")
	var got []string
	for _, r := range fresh {
		got = append(got, r.Description)
	}
	if strings.Join(got, "|") != "CORNER COFFEE|RENT" {
		t.Errorf("new records: %q", got)
	}
}
