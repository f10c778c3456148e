package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const book = `account assets
account expenses
account income

2024-01-05 * Coffee
    expenses:food:coffee     $3.50
    assets:cash

2024-01-31 Salary
    assets:bank    $2,000.00
    income:salary

2024-02-01 Rent
    expenses:rent     $900
    assets:bank
`

func run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	f := filepath.Join(dir, "book.journal")
	if err := os.WriteFile(f, []byte(book), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := Run(append([]string{"-f", f}, args...), &out, &errb)
	return out.String() + errb.String(), code
}

func TestBalanceCommand(t *testing.T) {
	out, code := run(t, "bal", "--depth", "1")
	if code != 0 || !strings.Contains(out, "expenses     $903.50") || !strings.Contains(out, "income") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestCheckAndStats(t *testing.T) {
	out, code := run(t, "check")
	if code != 0 || !strings.Contains(out, "3 transactions, all balanced") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	out, code = run(t, "stats")
	if code != 0 || !strings.Contains(out, "transactions  3") || !strings.Contains(out, "(28 days)") {
		t.Errorf("stats: exit %d\n%s", code, out)
	}
}

func TestUnknownCommand(t *testing.T) {
	out, code := run(t, "frob")
	if code != 2 || !strings.Contains(out, "unknown command") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
