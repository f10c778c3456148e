package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"example.com/ledger/account"
	"example.com/ledger/budget"
	"example.com/ledger/date"
	"example.com/ledger/importer"
	"example.com/ledger/journal"
	"example.com/ledger/money"
	"example.com/ledger/query"
	"example.com/ledger/report"
)

func balance(g global, args []string, w io.Writer) error {
	fs := newFlags("bal")
	depth := fs.Int("depth", 0, "")
	flat := fs.Bool("flat", false, "")
	empty := fs.Bool("empty", false, "")
	monthly := fs.Bool("M", false, "")
	quarterly := fs.Bool("Q", false, "")
	yearly := fs.Bool("Y", false, "")
	csvOut := fs.Bool("csv", false, "")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	j, q, err := load(g, words)
	if err != nil {
		return err
	}
	iv := date.None
	switch {
	case *monthly:
		iv = date.Monthly
	case *quarterly:
		iv = date.Quarterly
	case *yearly:
		iv = date.Yearly
	}
	if iv != date.None {
		return writePeriodic(w, report.PeriodicBalance(j, q, iv, *depth), j.Styles)
	}
	rows, total := report.Balance(j, q, report.BalanceOptions{Depth: *depth, Flat: *flat, Empty: *empty})
	if *csvOut {
		return report.WriteBalanceCSV(w, rows)
	}
	var table [][]string
	for _, r := range rows {
		name := r.Account
		if !*flat {
			name = strings.Repeat("  ", r.Depth-1) + account.Leaf(r.Account)
		}
		table = append(table, []string{name, r.Amount.WithStyles(j.Styles).String()})
	}
	table = append(table, []string{"total", total.WithStyles(j.Styles).String()})
	return report.Table(w, []string{"account", "balance"}, table)
}

func writePeriodic(w io.Writer, p report.Periodic, styles map[string]money.Style) error {
	header := append([]string{"account"}, p.Columns...)
	var table [][]string
	for i, a := range p.Accounts {
		row := []string{a}
		for _, c := range p.Cells[i] {
			row = append(row, c.WithStyles(styles).String())
		}
		table = append(table, row)
	}
	totals := []string{"total"}
	for _, t := range p.Totals {
		totals = append(totals, t.WithStyles(styles).String())
	}
	return report.Table(w, header, append(table, totals))
}

func register(g global, args []string, w io.Writer) error {
	fs := newFlags("reg")
	csvOut := fs.Bool("csv", false, "")
	depth := fs.Int("depth", 0, "")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	j, q, err := load(g, words)
	if err != nil {
		return err
	}
	rows := report.RegisterClipped(j, q, *depth)
	if *csvOut {
		return report.WriteRegisterCSV(w, rows)
	}
	var table [][]string
	for _, r := range rows {
		a := r.Amount
		if s, ok := j.Styles[a.Commodity]; ok {
			a.Style = s
		}
		table = append(table, []string{r.Date.String() + " " + r.Description, r.Account, money.Format(a), r.Running.WithStyles(j.Styles).String()})
	}
	return report.Table(w, []string{"date description", "account", "amount", "total"}, table)
}

func budgetCmd(g global, args []string, w io.Writer) error {
	fs := newFlags("budget")
	file := fs.String("b", "", "")
	period := fs.String("p", "", "")
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("budget needs -b FILE")
	}
	j, _, err := load(g, nil)
	if err != nil {
		return err
	}
	f, err := os.Open(*file)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := budget.Parse(f)
	if err != nil {
		return err
	}
	p := date.Period{}
	if *period != "" {
		if p, err = date.ParsePeriod(*period); err != nil {
			return err
		}
	} else if len(j.Transactions) > 0 {
		first, last := j.Transactions[0].Date, j.Transactions[len(j.Transactions)-1].Date
		p = date.Period{Start: date.Monthly.Start(first), End: date.Monthly.Next(date.Monthly.Start(last))}
	}
	var table [][]string
	for _, l := range budget.Compare(b, j, p) {
		table = append(table, []string{l.Account, l.Actual.String(), l.Budget.String(), fmt.Sprintf("%d%%", l.Used)})
	}
	return report.Table(w, []string{"account", "actual", "budget", "used"}, table)
}

func importCmd(g global, args []string, w io.Writer) error {
	fs := newFlags("import")
	rulesFile := fs.String("rules", "", "")
	bank := fs.String("bank", "assets:bank", "")
	commodity := fs.String("commodity", "$", "")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(words) != 1 || *rulesFile == "" {
		return fmt.Errorf("import wants CSV --rules FILE")
	}
	rf, err := os.Open(*rulesFile)
	if err != nil {
		return err
	}
	defer rf.Close()
	rules, err := importer.ParseRules(rf)
	if err != nil {
		return err
	}
	cf, err := os.Open(words[0])
	if err != nil {
		return err
	}
	defer cf.Close()
	recs, err := importer.ReadCSV(cf, importer.Columns{Date: 0, Description: 1, Amount: 2, Skip: 1, Commodity: *commodity})
	if err != nil {
		return err
	}
	if j, err := journal.ReadFile(g.file); err == nil {
		recs = importer.New(recs, j, *bank)
	} else if !os.IsNotExist(err) {
		return err
	}
	return importer.Write(w, recs, rules, *bank)
}

func accounts(g global, args []string, w io.Writer) error {
	j, _, err := load(g, nil)
	if err != nil {
		return err
	}
	for _, a := range j.AccountNames() {
		fmt.Fprintln(w, a)
	}
	return nil
}

func check(g global, args []string, w io.Writer) error {
	j, _, err := load(g, nil)
	if err != nil {
		return err
	}
	if u := j.Undeclared(); len(u) > 0 {
		return fmt.Errorf("undeclared accounts: %s", strings.Join(u, ", "))
	}
	fmt.Fprintf(w, "%d transactions, all balanced\n", len(j.Transactions))
	return nil
}

func load(g global, words []string) (*journal.Journal, query.Query, error) {
	q, err := query.Parse(words)
	if err != nil {
		return nil, query.Query{}, err
	}
	j, err := journal.ReadFile(g.file)
	if err != nil {
		return nil, query.Query{}, err
	}
	return j, q, nil
}
