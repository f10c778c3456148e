package date

import "fmt"

// Interval is how reports split time into columns.
type Interval int

const (
	None Interval = iota
	Weekly
	Monthly
	Quarterly
	Yearly
)

// ParseInterval reads "weekly", "monthly", "quarterly" or "yearly".
func ParseInterval(s string) (Interval, error) {
	switch s {
	case "weekly":
		return Weekly, nil
	case "monthly":
		return Monthly, nil
	case "quarterly":
		return Quarterly, nil
	case "yearly":
		return Yearly, nil
	}
	return None, fmt.Errorf("interval %q: want weekly, monthly, quarterly or yearly", s)
}

// Start is the first day of the interval d falls in (weeks start on
// Monday).
func (iv Interval) Start(d Date) Date {
	switch iv {
	case Weekly:
		return d.AddDays(-d.Weekday())
	case Monthly:
		return Date{d.Year, d.Month, 1}
	case Quarterly:
		return Date{d.Year, (d.Month-1)/3*3 + 1, 1}
	case Yearly:
		return Date{d.Year, 1, 1}
	}
	return d
}

// Next is the start of the interval after the one starting at start.
func (iv Interval) Next(start Date) Date {
	switch iv {
	case Weekly:
		return start.AddDays(7)
	case Monthly:
		return start.AddMonths(1)
	case Quarterly:
		return start.AddMonths(3)
	case Yearly:
		return start.AddMonths(12)
	}
	return start.AddDays(1)
}

// Label names the interval starting at start: 2024-W05, 2024-03, 2024q1,
// 2024.
func (iv Interval) Label(start Date) string {
	switch iv {
	case Weekly:
		return start.String()
	case Monthly:
		return fmt.Sprintf("%04d-%02d", start.Year, start.Month)
	case Quarterly:
		return fmt.Sprintf("%04dq%d", start.Year, (start.Month-1)/3+1)
	case Yearly:
		return fmt.Sprintf("%04d", start.Year)
	}
	return start.String()
}

// Split lists the starts of the intervals that cover p.
func (iv Interval) Split(p Period) []Date {
	var out []Date
	for d := iv.Start(p.Start); d.Before(p.End); d = iv.Next(d) {
		out = append(out, d)
	}
	return out
}
