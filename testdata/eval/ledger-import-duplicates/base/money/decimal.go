// Package money holds exact decimal amounts and their commodities.
package money

import (
	"errors"
	"fmt"
	"strings"
)

// Decimal is an exact decimal number: units × 10^-scale.
type Decimal struct {
	units int64
	scale int
}

// MaxScale is the most digits after the point a Decimal keeps.
const MaxScale = 8

// NewDecimal is units × 10^-scale.
func NewDecimal(units int64, scale int) Decimal { return Decimal{units: units, scale: scale} }

// Units and Scale give the decimal's representation.
func (d Decimal) Units() int64 { return d.units }
func (d Decimal) Scale() int   { return d.scale }

func pow10(n int) int64 {
	p := int64(1)
	for i := 0; i < n; i++ {
		p *= 10
	}
	return p
}

// rescale returns d with scale s (s >= d.scale).
func (d Decimal) rescale(s int) Decimal {
	return Decimal{units: d.units * pow10(s-d.scale), scale: s}
}

func align(a, b Decimal) (Decimal, Decimal) {
	if a.scale < b.scale {
		return a.rescale(b.scale), b
	}
	return a, b.rescale(a.scale)
}

// Add returns d + e.
func (d Decimal) Add(e Decimal) Decimal {
	d, e = align(d, e)
	return Decimal{units: d.units + e.units, scale: d.scale}
}

// Sub returns d - e.
func (d Decimal) Sub(e Decimal) Decimal { return d.Add(e.Neg()) }

// Neg returns -d.
func (d Decimal) Neg() Decimal { return Decimal{units: -d.units, scale: d.scale} }

// Abs returns |d|.
func (d Decimal) Abs() Decimal {
	if d.units < 0 {
		return d.Neg()
	}
	return d
}

// MulInt returns d × n.
func (d Decimal) MulInt(n int64) Decimal { return Decimal{units: d.units * n, scale: d.scale} }

// Cmp compares d and e: -1, 0 or 1.
func (d Decimal) Cmp(e Decimal) int {
	d, e = align(d, e)
	switch {
	case d.units < e.units:
		return -1
	case d.units > e.units:
		return 1
	}
	return 0
}

// IsZero reports whether d is 0.
func (d Decimal) IsZero() bool { return d.units == 0 }

// Sign is -1, 0 or 1.
func (d Decimal) Sign() int { return d.Cmp(Decimal{}) }

// String writes d with its scale's digits after the point.
func (d Decimal) String() string {
	neg := d.units < 0
	u := d.units
	if neg {
		u = -u
	}
	s := fmt.Sprintf("%0*d", d.scale+1, u)
	if d.scale > 0 {
		s = s[:len(s)-d.scale] + "." + s[len(s)-d.scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ErrSyntax is returned for text that is not a number.
var ErrSyntax = errors.New("not a decimal number")

// ParseDecimal reads "12", "-3.50", "+0.125" or "1,234.5" (commas group
// thousands).
func ParseDecimal(s string) (Decimal, error) {
	s = strings.TrimSpace(s)
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	s = strings.ReplaceAll(s, ",", "")
	intPart, frac, hasPoint := strings.Cut(s, ".")
	if intPart == "" && frac == "" || hasPoint && frac == "" && intPart == "" {
		return Decimal{}, fmt.Errorf("%q: %w", s, ErrSyntax)
	}
	if len(frac) > MaxScale {
		return Decimal{}, fmt.Errorf("%q: more than %d digits after the point", s, MaxScale)
	}
	var units int64
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return Decimal{}, fmt.Errorf("%q: %w", s, ErrSyntax)
		}
		units = units*10 + int64(c-'0')
	}
	if neg {
		units = -units
	}
	return Decimal{units: units, scale: len(frac)}, nil
}
