package money

import (
	"fmt"
	"strings"
	"unicode"
)

// ParseAmount reads an amount as written in a journal: "$3.50",
// "-$3.50", "$-3.50", "3.50 EUR", "€1,200", "12" (no commodity), or a
// quoted commodity with spaces: 3 "ACME Corp".
func ParseAmount(s string) (Amount, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Amount{}, fmt.Errorf("empty amount")
	}
	sign := ""
	if s[0] == '-' || s[0] == '+' {
		sign, s = s[:1], strings.TrimSpace(s[1:])
	}
	var a Amount
	num := s
	if sym, rest, ok := leadingSymbol(s); ok {
		a.Commodity, a.Style.Prefix = sym, true
		a.Style.Space = strings.HasPrefix(rest, " ")
		num = strings.TrimSpace(rest)
	} else if i := strings.IndexFunc(s, func(r rune) bool { return !isNumberRune(r) }); i >= 0 {
		num = strings.TrimSpace(s[:i])
		a.Commodity = strings.Trim(strings.TrimSpace(s[i:]), `"`)
		a.Style.Space = s[i] == ' '
	}
	if strings.HasPrefix(num, "-") || strings.HasPrefix(num, "+") {
		if sign != "" {
			return Amount{}, fmt.Errorf("amount %q: two signs", s)
		}
		sign, num = num[:1], num[1:]
	}
	a.Style.Grouping = strings.Contains(num, ",")
	d, err := ParseDecimal(sign + num)
	if err != nil {
		return Amount{}, fmt.Errorf("amount %q: %w", s, err)
	}
	a.Qty = d
	return a, nil
}

func isNumberRune(r rune) bool {
	return r >= '0' && r <= '9' || r == '.' || r == ',' || r == '-' || r == '+'
}

// leadingSymbol splits a commodity written before the number.
func leadingSymbol(s string) (sym, rest string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		end := strings.Index(s[1:], `"`)
		if end < 0 {
			return "", "", false
		}
		return s[1 : end+1], s[end+2:], true
	}
	i := strings.IndexFunc(s, func(r rune) bool { return isNumberRune(r) || unicode.IsSpace(r) })
	if i <= 0 {
		return "", "", false
	}
	return s[:i], s[i:], true
}
