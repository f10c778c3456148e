package money

// Amount is a quantity of one commodity ("$", "EUR", "AAPL"; "" for
// none).
type Amount struct {
	Qty       Decimal
	Commodity string
	// Style remembers how the amount was written, to write it alike.
	Style Style
}

// Style is how a commodity's amounts are written.
type Style struct {
	// Prefix: the symbol goes before the number ($3), else after (3 EUR).
	Prefix bool
	// Space between symbol and number.
	Space bool
	// Grouping writes thousands separators.
	Grouping bool
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	a.Qty = a.Qty.Neg()
	return a
}

// IsZero reports whether the quantity is 0.
func (a Amount) IsZero() bool { return a.Qty.IsZero() }
