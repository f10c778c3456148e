// Package importer turns a bank's CSV export into journal transactions.
package importer

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"example.com/ledger/date"
	"example.com/ledger/money"
)

// Columns say where a CSV export keeps each field (0-based), and how.
type Columns struct {
	Date, Description, Amount int
	// Skip is the number of header lines.
	Skip int
	// Commodity is given to amounts that carry none.
	Commodity string
	// Negate flips the sign (exports that show spending as positive).
	Negate bool
}

// Record is one line of the export.
type Record struct {
	Line        int
	Date        date.Date
	Description string
	Amount      money.Amount
}

// ReadCSV reads the records of an export.
func ReadCSV(r io.Reader, c Columns) ([]Record, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var out []Record
	for line := 1; ; line++ {
		fields, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if line <= c.Skip || len(fields) == 0 || len(fields) == 1 && strings.TrimSpace(fields[0]) == "" {
			continue
		}
		rec, err := c.record(fields)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		rec.Line = line
		out = append(out, rec)
	}
}

func (c Columns) record(f []string) (Record, error) {
	need := max(c.Date, c.Description, c.Amount)
	if len(f) <= need {
		return Record{}, fmt.Errorf("%d fields, want at least %d", len(f), need+1)
	}
	d, err := date.Parse(f[c.Date])
	if err != nil {
		return Record{}, err
	}
	a, err := money.ParseAmount(f[c.Amount])
	if err != nil {
		return Record{}, err
	}
	if a.Commodity == "" {
		a.Commodity = c.Commodity
		a.Style.Prefix = len(c.Commodity) == 1
	}
	if c.Negate {
		a = a.Neg()
	}
	return Record{Date: d, Description: strings.Join(strings.Fields(f[c.Description]), " "), Amount: a}, nil
}
