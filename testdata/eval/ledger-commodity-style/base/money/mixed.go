package money

import (
	"sort"
	"strings"
)

// Mixed is a sum of amounts in several commodities.
type Mixed struct {
	by     map[string]Decimal
	styles map[string]Style
}

// Add adds a to m.
func (m *Mixed) Add(a Amount) {
	if m.by == nil {
		m.by, m.styles = map[string]Decimal{}, map[string]Style{}
	}
	m.by[a.Commodity] = m.by[a.Commodity].Add(a.Qty)
	if _, ok := m.styles[a.Commodity]; !ok {
		m.styles[a.Commodity] = a.Style
	}
}

// AddMixed adds every amount of o to m.
func (m *Mixed) AddMixed(o Mixed) {
	for _, a := range o.Amounts() {
		m.Add(a)
	}
}

// Amounts lists the non-zero amounts, by commodity.
func (m Mixed) Amounts() []Amount {
	var out []Amount
	for c, q := range m.by {
		if !q.IsZero() {
			out = append(out, Amount{Qty: q, Commodity: c, Style: m.styles[c]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Commodity < out[j].Commodity })
	return out
}

// Of is m's quantity of one commodity.
func (m Mixed) Of(commodity string) Decimal { return m.by[commodity] }

// IsZero reports whether every commodity sums to zero.
func (m Mixed) IsZero() bool { return len(m.Amounts()) == 0 }

// String writes the amounts, comma-separated, or "0".
func (m Mixed) String() string {
	as := m.Amounts()
	if len(as) == 0 {
		return "0"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = Format(a)
	}
	return strings.Join(parts, ", ")
}
