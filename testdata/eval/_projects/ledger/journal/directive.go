package journal

import (
	"strings"

	"example.com/ledger/account"
)

// directive reads a line that is not a transaction:
//
//	account NAME
//	alias SHORT = NAME
func (p *parser) directive(line string) error {
	text, _ := splitComment(line)
	word, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "account":
		if rest == "" {
			return p.errorf("account needs a name")
		}
		p.j.Accounts = append(p.j.Accounts, account.Normalize(rest))
	case "alias":
		from, to, ok := strings.Cut(rest, "=")
		if !ok || strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" {
			return p.errorf("alias wants SHORT = ACCOUNT")
		}
		p.j.Aliases[account.Normalize(from)] = account.Normalize(to)
	default:
		return p.errorf("unknown directive %q", word)
	}
	return nil
}
