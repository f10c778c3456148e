package account

import (
	"sort"

	"example.com/ledger/money"
)

// Node is an account in a tree: its own balance and the sum with its
// descendants.
type Node struct {
	Name     string
	Own      money.Mixed
	Total    money.Mixed
	Children []*Node
}

// Tree builds the tree of the accounts in balances, every ancestor
// included, each Total the sum of its subtree. Roots and children are
// sorted by name.
func Tree(balances map[string]money.Mixed) []*Node {
	nodes := map[string]*Node{}
	var get func(name string) *Node
	get = func(name string) *Node {
		if n, ok := nodes[name]; ok {
			return n
		}
		n := &Node{Name: name}
		nodes[name] = n
		if p := Parent(name); p != "" {
			parent := get(p)
			parent.Children = append(parent.Children, n)
		}
		return n
	}
	for name, bal := range balances {
		n := get(name)
		n.Own.AddMixed(bal)
	}
	var roots []*Node
	for name, n := range nodes {
		if Parent(name) == "" {
			roots = append(roots, n)
		}
	}
	var total func(n *Node)
	total = func(n *Node) {
		n.Total = money.Mixed{}
		n.Total.AddMixed(n.Own)
		sortNodes(n.Children)
		for _, c := range n.Children {
			total(c)
			n.Total.AddMixed(c.Total)
		}
	}
	sortNodes(roots)
	for _, r := range roots {
		total(r)
	}
	return roots
}

func sortNodes(ns []*Node) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
}

// Walk visits the nodes depth first, parents before children, with their
// depth (roots: 1).
func Walk(roots []*Node, visit func(n *Node, depth int)) {
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		visit(n, depth)
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 1)
	}
}
