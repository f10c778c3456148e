package cli

import (
	"strings"
	"testing"
)

func TestReportsWriteAmountsAsTheJournalDoes(t *testing.T) {
	out, code := run(t, "bal", "--depth", "1")
	if code != 0 || !strings.Contains(out, "$1,096.50") || strings.Contains(out, "$1096.50") {
		t.Errorf("bal: exit %d\n%s", code, out)
	}
	out, code = run(t, "bal", "-M", "assets")
	if code != 0 || !strings.Contains(out, "$1,996.50") {
		t.Errorf("bal -M: exit %d\n%s", code, out)
	}
	out, code = run(t, "reg", "assets")
	if code != 0 || !strings.Contains(out, "$1,996.50") || !strings.Contains(out, "$1,096.50") {
		t.Errorf("reg: exit %d\n%s", code, out)
	}
}
