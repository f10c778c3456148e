package date

import (
	"fmt"
	"strconv"
	"strings"
)

// Period is the days from Start up to, not including, End. A zero Start
// or End leaves that side open.
type Period struct {
	Start, End Date
}

// Contains reports whether d is in p.
func (p Period) Contains(d Date) bool {
	if p.Start != (Date{}) && d.Before(p.Start) {
		return false
	}
	if p.End != (Date{}) && !d.Before(p.End) {
		return false
	}
	return true
}

// ParsePeriod reads a period: "2024" (the year), "2024-03" (the month),
// "2024q2" (the quarter), "2024-03-05" (the day), "2024-01..2024-04"
// (from the start of the first to the start of the second, exclusive) or
// with one side left open ("..2024-04", "2024-01..").
func ParsePeriod(s string) (Period, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if from, to, ok := strings.Cut(s, ".."); ok {
		var p Period
		if from != "" {
			a, err := ParsePeriod(from)
			if err != nil {
				return Period{}, err
			}
			p.Start = a.Start
		}
		if to != "" {
			b, err := ParsePeriod(to)
			if err != nil {
				return Period{}, err
			}
			p.End = b.Start
		}
		return p, nil
	}
	if y, q, ok := strings.Cut(s, "q"); ok {
		year, err1 := strconv.Atoi(y)
		quarter, err2 := strconv.Atoi(q)
		if err1 != nil || err2 != nil || quarter < 1 || quarter > 4 {
			return Period{}, fmt.Errorf("period %q: want YYYYqN", s)
		}
		start := Date{year, 3*(quarter-1) + 1, 1}
		return Period{start, start.AddMonths(3)}, nil
	}
	switch strings.Count(s, "-") {
	case 0:
		year, err := strconv.Atoi(s)
		if err != nil {
			return Period{}, fmt.Errorf("period %q: want a year, month, quarter, day or range", s)
		}
		return Period{Date{year, 1, 1}, Date{year + 1, 1, 1}}, nil
	case 1:
		d, err := Parse(s + "-01")
		if err != nil {
			return Period{}, fmt.Errorf("period %q: want YYYY-MM", s)
		}
		return Period{d, d.AddMonths(1)}, nil
	}
	d, err := Parse(s)
	if err != nil {
		return Period{}, err
	}
	return Period{d, d.AddDays(1)}, nil
}
