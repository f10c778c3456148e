package cli

import (
	"strings"
	"testing"
)

func TestRegisterDepth(t *testing.T) {
	out, code := run(t, "reg", "--depth", "1", "expenses")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if strings.Contains(out, "expenses:") || strings.Count(out, " expenses ") != 2 {
		t.Errorf("accounts not clipped to one level:\n%s", out)
	}
	out, code = run(t, "reg", "expenses", "--depth", "2")
	if code != 0 || !strings.Contains(out, "expenses:food ") || strings.Contains(out, "expenses:food:coffee") {
		t.Errorf("depth 2: exit %d\n%s", code, out)
	}
}
