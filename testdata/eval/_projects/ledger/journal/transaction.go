package journal

import (
	"example.com/ledger/date"
	"example.com/ledger/money"
)

// Status is a transaction's clearing mark.
type Status int

const (
	Unmarked Status = iota
	Pending         // !
	Cleared         // *
)

// Transaction is one dated entry of postings that sum to zero.
type Transaction struct {
	Date        date.Date
	Status      Status
	Code        string
	Description string
	Comment     string
	Tags        map[string]string
	Postings    []Posting
	Line        int // where the header is
}

// Posting moves an amount to or from an account.
type Posting struct {
	Account string
	// Amount is nil when the journal left it out: Balance infers it.
	Amount *money.Amount
	// Virtual postings ((account)) need not balance.
	Virtual bool
	// Balanced virtual postings ([account]) must balance among
	// themselves.
	Balanced bool

	Comment string
	// Tags are the "key: value" pairs of the posting's comment.
	Tags map[string]string
	Line int
}

// Journal is a parsed journal file.
type Journal struct {
	Transactions []*Transaction
	// Accounts are the accounts declared with "account NAME".
	Accounts []string
	// Aliases map a name written in postings to the account it means.
	Aliases map[string]string
	// Styles are the commodities' writing styles, from the first amount
	// of each.
	Styles map[string]money.Style
}
