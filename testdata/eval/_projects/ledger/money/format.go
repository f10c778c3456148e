package money

import "strings"

// Format writes a as its style says: "$1,234.50", "-$3.00", "12 EUR".
func Format(a Amount) string {
	num := a.Qty.Abs().String()
	if a.Style.Grouping {
		num = group(num)
	}
	sign := ""
	if a.Qty.Sign() < 0 {
		sign = "-"
	}
	if a.Commodity == "" {
		return sign + num
	}
	sym := a.Commodity
	if strings.ContainsAny(sym, " 0123456789") {
		sym = `"` + sym + `"`
	}
	sep := ""
	if a.Style.Space {
		sep = " "
	}
	if a.Style.Prefix {
		return sign + sym + sep + num
	}
	return sign + num + sep + sym
}

// group puts a comma between each three digits of the integer part.
func group(num string) string {
	intPart, frac, hasPoint := strings.Cut(num, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasPoint {
		b.WriteString("." + frac)
	}
	return b.String()
}
