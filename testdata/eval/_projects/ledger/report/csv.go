package report

import (
	"encoding/csv"
	"io"

	"example.com/ledger/money"
)

// WriteBalanceCSV writes a balance report as CSV: account, commodity,
// amount; an account with several commodities takes a row for each.
func WriteBalanceCSV(w io.Writer, rows []BalanceRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"account", "commodity", "amount"}); err != nil {
		return err
	}
	for _, r := range rows {
		for _, a := range r.Amount.Amounts() {
			if err := cw.Write([]string{r.Account, a.Commodity, a.Qty.String()}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteRegisterCSV writes a register report as CSV.
func WriteRegisterCSV(w io.Writer, rows []RegisterRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"date", "description", "account", "amount", "running"}); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write([]string{r.Date.String(), r.Description, r.Account, money.Format(r.Amount), r.Running.String()}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
