package edits

import (
	"strings"
	"testing"
)

func TestFileDiffHeaders(t *testing.T) {
	for _, tc := range []struct {
		name             string
		old, new         string
		existed, deleted bool
		want             string
	}{
		{"changed", "a\n", "b\n", true, false, "--- a/f.go\n+++ b/f.go\n"},
		{"created", "", "b\n", false, false, "--- /dev/null\n+++ b/f.go\n"},
		{"deleted", "a\n", "", true, true, "--- a/f.go\n+++ /dev/null\n"},
	} {
		if got := FileDiff("f.go", tc.old, tc.existed, tc.new, tc.deleted, -1); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}
