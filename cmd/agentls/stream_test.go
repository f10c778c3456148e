package main

import (
	"strings"
	"testing"
)

// A stream that closes cleanly with no finish reason and no [DONE] is
// broken (issue 13, item 1): after text the task fails with reason llm and
// the cut-off sentence is not taken for a summary.
func TestStreamEndingWithoutFinishAfterText(t *testing.T) {
	e := newEnv(t, nil)
	srv := fakeModel(t, `{"turns": [{"text": "I will start by reading the file and then edit it.", "chunkSize": 6, "endAfter": 5}]}`)
	r := e.run("run", "--json", "--base-url", srv.URL(), "do it")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", r.code, r.stderr)
	}
	var end map[string]any
	for _, l := range jsonLines(t, r.stderr) {
		if l["kind"] == "end" {
			end = l["result"].(map[string]any)
		}
	}
	if end == nil || end["status"] != "error" || end["reason"] != "llm" || !strings.Contains(end["error"].(string), "ended without a finish reason") {
		t.Fatalf("end = %v\n%s", end, r.stderr)
	}
}

// Before any text the same broken stream is retried like a reset.
func TestStreamEndingWithoutFinishBeforeTextIsRetried(t *testing.T) {
	e := newEnv(t, nil)
	srv := fakeModel(t, `{"turns": [{"text": "lost", "endAfter": 1}, {"text": "Nothing to do."}]}`)
	r := e.run("run", "--base-url", srv.URL(), "do it")
	if r.code != 0 || !strings.Contains(r.stderr, "ended without a finish reason") || !strings.Contains(r.stderr, "── ok") {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if srv.Pending() != 0 {
		t.Errorf("%d turns not served: the stream was not retried", srv.Pending())
	}
}
