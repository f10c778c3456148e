package journal

import (
	"os"
	"sort"

	"example.com/ledger/account"
)

// ReadFile parses the journal at path.
func ReadFile(path string) (*Journal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// AccountNames lists every account used or declared, sorted.
func (j *Journal) AccountNames() []string {
	seen := map[string]bool{}
	for _, a := range j.Accounts {
		seen[a] = true
	}
	for _, t := range j.Transactions {
		for _, p := range t.Postings {
			seen[p.Account] = true
		}
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Undeclared lists accounts used in postings that no "account" directive
// declares (nor declares an ancestor of), when the journal declares any.
func (j *Journal) Undeclared() []string {
	if len(j.Accounts) == 0 {
		return nil
	}
	var out []string
	for _, a := range j.AccountNames() {
		declared := false
		for _, d := range j.Accounts {
			if account.IsUnder(a, d) {
				declared = true
				break
			}
		}
		if !declared {
			out = append(out, a)
		}
	}
	return out
}
