package journal

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"example.com/ledger/account"
	"example.com/ledger/date"
	"example.com/ledger/money"
)

// Parse reads a journal. file names it in errors. Every transaction is
// balanced (see Balance); the transactions are sorted by date, those of
// one day in the order written.
func Parse(r io.Reader, file string) (*Journal, error) {
	p := &parser{file: file, j: &Journal{Aliases: map[string]string{}, Styles: map[string]money.Style{}}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.line++
		if err := p.feed(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	sort.SliceStable(p.j.Transactions, func(a, b int) bool {
		return p.j.Transactions[a].Date.Before(p.j.Transactions[b].Date)
	})
	return p.j, nil
}

type parser struct {
	file string
	line int
	j    *Journal
	cur  *Transaction
}

func (p *parser) errorf(format string, args ...any) error {
	return &Error{File: p.file, Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) feed(line string) error {
	switch classify(line) {
	case blankLine:
		return p.finish()
	case commentLine:
		return nil
	case headerLine:
		if err := p.finish(); err != nil {
			return err
		}
		return p.header(line)
	case postingLine:
		if p.cur == nil {
			return p.errorf("a posting outside a transaction")
		}
		return p.posting(line)
	}
	if err := p.finish(); err != nil {
		return err
	}
	return p.directive(line)
}

// header reads DATE [*|!] [(CODE)] DESCRIPTION [; COMMENT].
func (p *parser) header(line string) error {
	text, comment := splitComment(line)
	dateText, rest, _ := strings.Cut(text, " ")
	d, err := date.Parse(dateText)
	if err != nil {
		return p.errorf("%v", err)
	}
	t := &Transaction{Date: d, Comment: comment, Tags: tags(comment), Line: p.line}
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(rest, "*"):
		t.Status, rest = Cleared, strings.TrimSpace(rest[1:])
	case strings.HasPrefix(rest, "!"):
		t.Status, rest = Pending, strings.TrimSpace(rest[1:])
	}
	if strings.HasPrefix(rest, "(") {
		if end := strings.Index(rest, ")"); end > 0 {
			t.Code, rest = rest[1:end], strings.TrimSpace(rest[end+1:])
		}
	}
	t.Description = rest
	p.cur = t
	return nil
}

func (p *parser) posting(line string) error {
	text, comment := splitComment(line)
	if strings.TrimSpace(text) == "" {
		// A comment line of the transaction.
		if p.cur.Comment != "" {
			p.cur.Comment += "\n"
		}
		p.cur.Comment += comment
		return nil
	}
	name, amountText := splitPosting(text)
	ps := Posting{Comment: comment, Line: p.line}
	if strings.HasPrefix(name, "(") && strings.HasSuffix(name, ")") {
		ps.Virtual, name = true, name[1:len(name)-1]
	} else if strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
		ps.Virtual, ps.Balanced, name = true, true, name[1:len(name)-1]
	}
	name = account.Normalize(name)
	ps.Account = p.resolveAlias(name)
	if amountText != "" {
		a, err := money.ParseAmount(amountText)
		if err != nil {
			return p.errorf("%v", err)
		}
		p.noteStyle(a)
		ps.Amount = &a
	}
	p.cur.Postings = append(p.cur.Postings, ps)
	return nil
}

// resolveAlias rewrites name when it is an alias or an account below one
// (with alias bank = assets:bank, bank:savings is assets:bank:savings);
// the longest alias that applies wins.
func (p *parser) resolveAlias(name string) string {
	best, out := -1, name
	for short, full := range p.j.Aliases {
		switch {
		case name == short && len(short) > best:
			best, out = len(short), full
		case strings.HasPrefix(name, short+account.Sep) && len(short) > best:
			best, out = len(short), full+name[len(short):]
		}
	}
	return out
}

// noteStyle learns how the journal writes a commodity: the placement of
// its first amount, with thousands separators if any amount has them.
func (p *parser) noteStyle(a money.Amount) {
	s, ok := p.j.Styles[a.Commodity]
	if !ok {
		s = a.Style
	}
	s.Grouping = s.Grouping || a.Style.Grouping
	p.j.Styles[a.Commodity] = s
}

// finish closes the transaction being read: it must balance.
func (p *parser) finish() error {
	t := p.cur
	if t == nil {
		return nil
	}
	p.cur = nil
	if len(t.Postings) == 0 {
		return &Error{File: p.file, Line: t.Line, Msg: "a transaction without postings"}
	}
	if err := Balance(t); err != nil {
		return &Error{File: p.file, Line: t.Line, Msg: err.Error()}
	}
	p.j.Transactions = append(p.j.Transactions, t)
	return nil
}
