// Package date holds calendar dates (no time of day, no zone) and periods.
package date

import (
	"fmt"
	"strconv"
	"strings"
)

// Date is a day of the proleptic Gregorian calendar.
type Date struct {
	Year, Month, Day int
}

// Parse reads 2024-01-05, 2024/01/05 or 2024.01.05 (one- or two-digit
// month and day).
func Parse(s string) (Date, error) {
	s = strings.TrimSpace(s)
	sep := strings.IndexAny(s, "-/.")
	if sep < 0 {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	parts := strings.Split(s, s[sep:sep+1])
	if len(parts) != 3 {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || p == "" {
			return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
		}
		n[i] = v
	}
	d := Date{n[0], n[1], n[2]}
	if !d.Valid() {
		return Date{}, fmt.Errorf("date %q: no such day", s)
	}
	return d, nil
}

// Valid reports whether d is a day of the calendar.
func (d Date) Valid() bool {
	return d.Month >= 1 && d.Month <= 12 && d.Day >= 1 && d.Day <= DaysIn(d.Year, d.Month)
}

// IsLeap reports whether year has a 29th of February.
func IsLeap(year int) bool {
	return year%4 == 0
}

// DaysIn is the number of days of a month.
func DaysIn(year, month int) int {
	switch month {
	case 2:
		if IsLeap(year) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// String writes YYYY-MM-DD.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// Before reports whether d is earlier than e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// Compare is -1, 0 or 1.
func (d Date) Compare(e Date) int {
	for _, p := range [][2]int{{d.Year, e.Year}, {d.Month, e.Month}, {d.Day, e.Day}} {
		if p[0] != p[1] {
			if p[0] < p[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// AddDays moves d by n days (n may be negative).
func (d Date) AddDays(n int) Date {
	for ; n > 0; n-- {
		d.Day++
		if d.Day > DaysIn(d.Year, d.Month) {
			d.Day, d.Month = 1, d.Month+1
			if d.Month > 12 {
				d.Month, d.Year = 1, d.Year+1
			}
		}
	}
	for ; n < 0; n++ {
		d.Day--
		if d.Day < 1 {
			d.Month--
			if d.Month < 1 {
				d.Month, d.Year = 12, d.Year-1
			}
			d.Day = DaysIn(d.Year, d.Month)
		}
	}
	return d
}

// AddMonths moves d by n months, keeping the day where the month has it
// and taking the month's last day where it has not (Jan 31 + 1 month =
// Feb 28 or 29).
func (d Date) AddMonths(n int) Date {
	m := d.Year*12 + (d.Month - 1) + n
	d.Year, d.Month = m/12, m%12+1
	if max := DaysIn(d.Year, d.Month); d.Day > max {
		d.Day = max
	}
	return d
}

// Weekday is 0 for Monday … 6 for Sunday.
func (d Date) Weekday() int {
	// Days since 0001-01-01, a Monday.
	return d.ordinal() % 7
}

func (d Date) ordinal() int {
	y := d.Year - 1
	n := y*365 + y/4 - y/100 + y/400
	for m := 1; m < d.Month; m++ {
		n += DaysIn(d.Year, m)
	}
	return n + d.Day - 1
}

// DaysBetween is e - d in days.
func DaysBetween(d, e Date) int { return e.ordinal() - d.ordinal() }
