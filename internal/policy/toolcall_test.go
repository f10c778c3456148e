package policy

import (
	"strings"
	"testing"
)

func TestCheckToolCall(t *testing.T) {
	r := Rules{
		Allow: []string{"mcp docs", "mcp gh.list_*"},
		Deny:  []string{"mcp gh.delete_repo", "mcp *secret*"},
	}
	for _, tc := range []struct {
		call string
		want Verdict
		why  string
	}{
		{`mcp docs.search {"q":"x"}`, Allow, ""},
		{`mcp docsx.search {}`, Ask, `"mcp docsx.search"`},
		{`mcp gh.list_issues {}`, Allow, ""},
		{`mcp gh.delete_repo {"name":"x"}`, Deny, `"mcp gh.delete_repo"`},
		{`mcp gh.delete_repos {}`, Ask, "no tools.allow rule"},
		{`mcp docs.get {"path":"secret.txt"}`, Deny, "*secret*"},
		// The arguments are JSON, not a command line: nothing in them is
		// split at ; or | or refused as a substitution.
		{`mcp docs.search {"q":"a; rm -rf / | sh $(x)"}`, Allow, ""},
	} {
		d := r.CheckToolCall(tc.call)
		if d.Verdict != tc.want || !strings.Contains(d.Reason, tc.why) {
			t.Errorf("%s: %v %q, want %v containing %q", tc.call, d.Verdict, d.Reason, tc.want, tc.why)
		}
	}
	if d := (Rules{Allow: []string{"*"}, Deny: []string{"mcp gh"}}).CheckToolCall("mcp gh.x {}"); d.Verdict != Deny {
		t.Errorf("deny must win over *: %v", d.Verdict)
	}
	if d := (Rules{Allow: []string{"*"}}).CheckToolCall("mcp gh.x {}"); d.Verdict != Allow {
		t.Errorf("* must allow a call no rule denies: %v", d.Verdict)
	}
}
