package importer

import (
	"strings"
	"testing"
)

const rulesText = `# bank rules
default expenses:misc
if coffee|bakery
  account expenses:food
  description Coffee
if ^SALARY
  account income:salary
`

func TestRules(t *testing.T) {
	rs, err := ParseRules(strings.NewReader(rulesText))
	if err != nil {
		t.Fatal(err)
	}
	cases := [][3]string{
		{"CORNER COFFEE 123", "expenses:food", "Coffee"},
		{"salary ACME", "income:salary", "salary ACME"},
		{"HARDWARE STORE", "expenses:misc", "HARDWARE STORE"},
	}
	for _, c := range cases {
		a, d := rs.Apply(c[0])
		if a != c[1] || d != c[2] {
			t.Errorf("Apply(%q) = %q, %q", c[0], a, d)
		}
	}
	if _, err := ParseRules(strings.NewReader("account x\n")); err == nil {
		t.Error("account outside if accepted")
	}
}

func TestReadCSV(t *testing.T) {
	in := "Date,Text,Amount\n2024-01-05,CORNER  COFFEE,-3.50\n2024-01-06,SALARY,2000\n"
	recs, err := ReadCSV(strings.NewReader(in), Columns{Date: 0, Description: 1, Amount: 2, Skip: 1, Commodity: "$"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Description != "CORNER COFFEE" || recs[0].Amount.Qty.String() != "-3.50" || recs[1].Amount.Commodity != "$" {
		t.Errorf("%+v", recs)
	}
}
