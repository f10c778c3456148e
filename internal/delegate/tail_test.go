package delegate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The end of a job's events, quoted in its failure reason, starts on a
// character: 2000 bytes back from the end falls inside a two-byte one here.
func TestTailCutsOnACharacter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(p, []byte(strings.Repeat("é", 1500)+"x"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := tail(p)
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "…é") || !strings.HasSuffix(got, "éx") {
		t.Fatalf("tail = %.20q…", got)
	}
	if n := len(strings.TrimPrefix(got, "…")); n > 2000 || n < 1999 {
		t.Fatalf("tail kept %d bytes", n)
	}
}
