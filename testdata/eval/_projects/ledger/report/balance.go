// Package report computes the balance, register and periodic reports of a
// journal.
package report

import (
	"example.com/ledger/account"
	"example.com/ledger/journal"
	"example.com/ledger/money"
	"example.com/ledger/query"
)

// BalanceRow is one account of a balance report, indented by Depth.
type BalanceRow struct {
	Account string
	Depth   int
	Amount  money.Mixed
}

// BalanceOptions shape a balance report.
type BalanceOptions struct {
	// Depth clips accounts to that many levels (0: all).
	Depth int
	// Flat lists accounts by full name with their own balance, without
	// parents.
	Flat bool
	// Empty keeps accounts whose balance is zero.
	Empty bool
}

// Balance sums the matching postings by account: a tree (parents carry
// their subtree's total) or a flat list, and the total of all.
func Balance(j *journal.Journal, q query.Query, o BalanceOptions) ([]BalanceRow, money.Mixed) {
	balances := map[string]money.Mixed{}
	var total money.Mixed
	for _, t := range j.Transactions {
		for _, p := range t.Postings {
			if p.Amount == nil || !q.Match(t, p) {
				continue
			}
			name := account.Clip(p.Account, o.Depth)
			m := balances[name]
			m.Add(*p.Amount)
			balances[name] = m
			total.Add(*p.Amount)
		}
	}
	var rows []BalanceRow
	if o.Flat {
		for _, name := range sortedKeys(balances) {
			if m := balances[name]; o.Empty || !m.IsZero() {
				rows = append(rows, BalanceRow{Account: name, Depth: 1, Amount: m})
			}
		}
		return rows, total
	}
	account.Walk(account.Tree(balances), func(n *account.Node, depth int) {
		if o.Empty || !n.Total.IsZero() {
			rows = append(rows, BalanceRow{Account: n.Name, Depth: depth, Amount: n.Total})
		}
	})
	return rows, total
}
