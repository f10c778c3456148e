package importer

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Rules pick the account a record's money goes to, from its description:
//
//	if coffee|bakery
//	  account expenses:food
//	  description Coffee
//
// The first rule whose pattern matches (without case) wins; Default is
// the account when none does.
type Rules struct {
	Rules   []Rule
	Default string
}

// Rule is one "if" block.
type Rule struct {
	Pattern     *regexp.Regexp
	Account     string
	Description string // replaces the record's, when set
}

// ParseRules reads a rules file.
func ParseRules(r io.Reader) (*Rules, error) {
	rs := &Rules{Default: "expenses:unknown"}
	sc := bufio.NewScanner(r)
	var cur *Rule
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		word, arg, _ := strings.Cut(text, " ")
		arg = strings.TrimSpace(arg)
		switch word {
		case "if":
			re, err := regexp.Compile("(?i)" + arg)
			if err != nil {
				return nil, fmt.Errorf("rules line %d: %v", line, err)
			}
			rs.Rules = append(rs.Rules, Rule{Pattern: re})
			cur = &rs.Rules[len(rs.Rules)-1]
		case "account", "description":
			if cur == nil {
				return nil, fmt.Errorf("rules line %d: %s outside an if block", line, word)
			}
			if word == "account" {
				cur.Account = arg
			} else {
				cur.Description = arg
			}
		case "default":
			rs.Default = arg
		default:
			return nil, fmt.Errorf("rules line %d: unknown word %q", line, word)
		}
	}
	return rs, sc.Err()
}

// Apply is the account and description for a record's description.
func (rs *Rules) Apply(desc string) (account, description string) {
	for _, r := range rs.Rules {
		if r.Pattern.MatchString(desc) {
			description = desc
			if r.Description != "" {
				description = r.Description
			}
			return r.Account, description
		}
	}
	return rs.Default, desc
}
