// Package need lets a test say what it needs from the machine. On a
// developer's machine a missing tool skips the test with a line saying how
// to install it; in CI (.ci/run exports AGENTLS_CI=1, after .ci/install has
// put every tool in place) the same test fails instead, because a test that
// skips in CI is a test that does not run.
package need

import (
	"os"
	"testing"
)

// InCI reports whether this run is the project's CI.
func InCI() bool { return os.Getenv("AGENTLS_CI") != "" }

// Missing ends t because something it needs is not on this machine: a skip
// here, a failure in CI.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("missing in CI (.ci/install should have installed it): "+format, args...)
	}
	t.Skipf(format, args...)
}
