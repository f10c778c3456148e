package acpclient

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// An agent that writes files itself (Codex) reports a tool call of kind
// edit with a diff, completed by an update without it. The bridge counts
// the file as changed only once the call completed, never a failed call's
// file, and never a file outside the workspace.
func TestBridgeCountsFilesFromReportedDiffs(t *testing.T) {
	root := t.TempDir()
	r := &bridgeRun{b: Bridge{Root: root}, changed: map[string]bool{}}
	c := &bridgeClient{r: r}
	diff := func(path string) sdk.ToolCallContent {
		return sdk.ToolCallContent{Diff: &sdk.ToolCallContentDiff{Type: "diff", Path: path, NewText: "x\n"}}
	}
	update := func(u sdk.SessionUpdate) {
		t.Helper()
		if err := c.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: "s", Update: u}); err != nil {
			t.Fatal(err)
		}
	}
	status := func(s sdk.ToolCallStatus) *sdk.ToolCallStatus { return &s }

	update(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "edit", Title: "Edit", Kind: sdk.ToolKindEdit,
		Status:  sdk.ToolCallStatusInProgress,
		Content: []sdk.ToolCallContent{diff(filepath.Join(root, "a.txt")), diff("/elsewhere/b.txt")}}})
	update(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "bad", Title: "Edit", Kind: sdk.ToolKindEdit,
		Status: sdk.ToolCallStatusInProgress, Content: []sdk.ToolCallContent{diff("c.txt")}}})
	if got := r.files(); len(got) != 0 {
		t.Fatalf("files counted before their call completed: %q", got)
	}
	update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "bad", Status: status(sdk.ToolCallStatusFailed)}})
	update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "edit", Status: status(sdk.ToolCallStatusCompleted)}})
	// A completed call that carries its diff only in the completing update.
	update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "late", Status: status(sdk.ToolCallStatusCompleted),
		Content: []sdk.ToolCallContent{diff("sub/d.txt")}}})
	if got, want := r.files(), []string{"a.txt", "sub/d.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files changed %q, want %q", got, want)
	}
	if len(r.diffs) != 0 {
		t.Errorf("calls still held after they ended: %v", r.diffs)
	}
}
