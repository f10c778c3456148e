package worktree

import "testing"

func TestChangeVerb(t *testing.T) {
	for _, tc := range []struct {
		c    Change
		want string
	}{
		{Change{Existed: false}, "created"},
		{Change{Existed: true, Deleted: true}, "deleted"},
		{Change{Existed: true}, "changed"},
	} {
		if got := tc.c.Verb(); got != tc.want {
			t.Errorf("%+v.Verb() = %q, want %q", tc.c, got, tc.want)
		}
	}
}
