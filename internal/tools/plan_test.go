package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestUpdatePlan(t *testing.T) {
	tl := UpdatePlan()
	if !json.Valid(tl.Spec().Parameters) {
		t.Fatalf("schema is not JSON: %s", tl.Spec().Parameters)
	}
	res, err := tl.Run(context.Background(), json.RawMessage(`{"plan":[{"step":"read","status":"completed"},{"step":"fix","status":"in_progress"},{"step":"test","status":"pending"}],"explanation":"found it"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan == nil || len(res.Plan.Steps) != 3 || res.Plan.Explanation != "found it" || len(res.Changed) != 0 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Output, "1 of 3") || !strings.Contains(res.Output, "next: fix") {
		t.Errorf("output %q", res.Output)
	}
	for _, bad := range []struct{ args, err string }{
		{`{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`, "at most one step"},
		{`{"plan":[{"step":"a","status":"done"}]}`, `status "done"`},
		{`{"plan":[{"step":" ","status":"pending"}]}`, "no text"},
		{`{"plan":[]}`, "empty"},
		{`{"plan":"read, fix"}`, "want"},
	} {
		res, err := tl.Run(context.Background(), json.RawMessage(bad.args))
		if err == nil || !strings.Contains(err.Error(), bad.err) || res.Plan != nil {
			t.Errorf("%s: err %v, plan %v; want an error with %q", bad.args, err, res.Plan, bad.err)
		}
	}
}
