package journal

import (
	"strings"
	"testing"
)

func TestAliasCoversSubaccounts(t *testing.T) {
	in := `alias bank = assets:bank
alias bank:old = assets:closed

2024-01-05 Transfer
    bank:savings     $100
    bank:old:x       $5
    bankfees         $1
    bank
`
	j, err := Parse(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range j.Transactions[0].Postings {
		got = append(got, p.Account)
	}
	if want := "assets:bank:savings assets:closed:x bankfees assets:bank"; strings.Join(got, " ") != want {
		t.Errorf("accounts %q, want %q", strings.Join(got, " "), want)
	}
}
