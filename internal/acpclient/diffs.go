package acpclient

import (
	sdk "github.com/coder/acp-go-sdk"
)

// noteDiffs records the workspace files a tool call says it edits (its
// diff content), and counts them as changed once the call completed.
// Agents such as Codex (codex-acp) never call fs/write_text_file: they
// write the files themselves and report a tool call of kind edit with a
// diff. Without this the bridge would report no files changed and skip the
// checks after such an agent's turn. Paths outside the workspace are not
// counted. The diff may come with the tool_call and not be repeated by the
// update that completes it, so the paths are kept per call until then.
func (c *bridgeClient) noteDiffs(id sdk.ToolCallId, content []sdk.ToolCallContent, status sdk.ToolCallStatus) {
	var paths []string
	for _, cc := range content {
		if cc.Diff == nil {
			continue
		}
		if rel, err := c.confine(cc.Diff.Path, false); err == nil {
			paths = append(paths, rel)
		}
	}
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.diffs == nil {
		r.diffs = map[sdk.ToolCallId][]string{}
	}
	paths = append(r.diffs[id], paths...)
	switch status {
	case sdk.ToolCallStatusCompleted:
		for _, p := range paths {
			r.changed[p] = true
		}
		delete(r.diffs, id)
	case sdk.ToolCallStatusFailed:
		delete(r.diffs, id)
	default:
		if len(paths) > 0 {
			r.diffs[id] = paths
		}
	}
}

// noteUpdateDiffs feeds noteDiffs from a session/update.
func (c *bridgeClient) noteUpdateDiffs(u sdk.SessionUpdate) {
	switch {
	case u.ToolCall != nil:
		c.noteDiffs(u.ToolCall.ToolCallId, u.ToolCall.Content, u.ToolCall.Status)
	case u.ToolCallUpdate != nil:
		var st sdk.ToolCallStatus
		if u.ToolCallUpdate.Status != nil {
			st = *u.ToolCallUpdate.Status
		}
		c.noteDiffs(u.ToolCallUpdate.ToolCallId, u.ToolCallUpdate.Content, st)
	}
}
