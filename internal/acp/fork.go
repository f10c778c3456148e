package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
)

// UnstableForkSession implements session/fork (sessionCapabilities.fork;
// unstable in ACP): a new session whose conversation is a copy of the
// forked one's as it is on file, going on apart from it. The copy is the
// session's export put back under a new ID (what `agentls sessions export`
// and `import` do across machines), in cwd's workspace. A fork has its own
// worktree under agent.isolation "worktree": worktrees belong to a session
// ID, so the fork's first task makes one from the user's files, and the
// forked session's unmerged change stays with it (/merge still takes it).
func (a *Agent) UnstableForkSession(_ context.Context, p sdk.UnstableForkSessionRequest) (_ sdk.UnstableForkSessionResponse, err error) {
	defer barrier(a.log, "session/fork", &err)
	from := string(p.SessionId)
	if !session.ValidID(from) {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%q is not a session ID", from)})
	}
	if !filepath.IsAbs(p.Cwd) {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, got %q", p.Cwd)})
	}
	disk, err := tools.NewDiskWorkspace(p.Cwd)
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	root := disk.Root()
	// The forked session is in its own workspace when this connection has
	// it open, else in cwd's.
	srcRoot := root
	a.mu.Lock()
	if s := a.sessions[from]; s != nil {
		srcRoot = s.root
	}
	a.mu.Unlock()
	warn := func(msg string) { a.log.Warn(msg) }
	src, err := session.Open(srcRoot, session.Options{Warn: warn})
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInternalError(map[string]any{"error": "the session store cannot be opened: " + err.Error()})
	}
	b, err := src.Export(from)
	if errors.Is(err, session.ErrNotFound) {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q in %s", from, srcRoot)})
	}
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	dst := src
	if root != srcRoot {
		if dst, err = session.Open(root, session.Options{Warn: warn}); err != nil {
			return sdk.UnstableForkSessionResponse{}, sdk.NewInternalError(map[string]any{"error": "the session store cannot be opened: " + err.Error()})
		}
	} else {
		b.Transcripts = nil // the same store has them: the copy names them
	}
	id := dst.NewID()
	if err := b.Rename(id); err != nil {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	if err := dst.Import(b); err != nil {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	var servers []sdk.McpServer
	if len(p.McpServers) > 0 {
		// The unstable request's MCP servers are the stable ones on the wire.
		raw, _ := json.Marshal(p.McpServers)
		if err := json.Unmarshal(raw, &servers); err != nil {
			return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "mcpServers: " + err.Error()})
		}
	}
	s, err := a.loadStored(p.Cwd, servers, id)
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	if err := s.setExtraDirs(p.AdditionalDirectories); err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	res := sdk.UnstableForkSessionResponse{SessionId: sdk.SessionId(s.id), Modes: s.modes()}
	raw, _ := json.Marshal(s.configOptions())
	if err := json.Unmarshal(raw, &res.ConfigOptions); err != nil {
		a.log.Warn("session/fork: config options: " + err.Error())
	}
	return res, nil
}
