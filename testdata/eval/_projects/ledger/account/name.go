// Package account handles hierarchical account names
// ("assets:bank:checking") and trees of balances.
package account

import "strings"

// Sep separates the levels of an account name.
const Sep = ":"

// Split is the levels of name.
func Split(name string) []string { return strings.Split(name, Sep) }

// Depth is the number of levels (assets:bank = 2).
func Depth(name string) int { return len(Split(name)) }

// Parent is the name one level up, "" for a top-level account.
func Parent(name string) string {
	i := strings.LastIndex(name, Sep)
	if i < 0 {
		return ""
	}
	return name[:i]
}

// Leaf is the last level.
func Leaf(name string) string { return name[strings.LastIndex(name, Sep)+1:] }

// Ancestors lists the parents of name, the top level first, without name.
func Ancestors(name string) []string {
	var out []string
	for p := Parent(name); p != ""; p = Parent(p) {
		out = append([]string{p}, out...)
	}
	return out
}

// Clip cuts name to at most depth levels (depth 0: unchanged).
func Clip(name string, depth int) string {
	if depth <= 0 {
		return name
	}
	parts := Split(name)
	if len(parts) <= depth {
		return name
	}
	return strings.Join(parts[:depth], Sep)
}

// Normalize trims the spaces around each level.
func Normalize(name string) string {
	parts := Split(name)
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return strings.Join(parts, Sep)
}

// IsUnder reports whether name is ancestor or one of its descendants.
func IsUnder(name, ancestor string) bool {
	return name == ancestor || strings.HasPrefix(name, ancestor+Sep)
}
