package journal

import (
	"strings"
	"testing"
)

func TestBalanceMultiCommodity(t *testing.T) {
	in := "2024-03-01 Exchange\n    assets:eur   100 EUR\n    assets:usd   -$110\n    equity:conversion\n"
	_, err := Parse(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
}

func TestVirtualPostingsNeedNotBalance(t *testing.T) {
	in := "2024-03-01 Budget\n    (budget:food)   $300\n    assets:a   $1\n    assets:b   -$1\n"
	j, err := Parse(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	if !j.Transactions[0].Postings[0].Virtual {
		t.Error("not virtual")
	}
}
