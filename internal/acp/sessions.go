package acp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/textcut"
)

// listPage is how many sessions one session/list answer holds.
const listPage = 50

// ListSessions implements sdk.Agent: the stored sessions of cwd's
// workspace, or without a cwd of every workspace this connection has seen,
// most recent first, a page at a time (the cursor is the offset).
func (a *Agent) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (_ sdk.ListSessionsResponse, err error) {
	defer barrier(a.log, "session/list", &err)
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	var roots []string
	if p.Cwd != nil && *p.Cwd != "" {
		if !filepath.IsAbs(*p.Cwd) {
			return out, sdk.NewInvalidParams(map[string]any{"error": "cwd must be an absolute path"})
		}
		roots = []string{filepath.Clean(*p.Cwd)}
	} else {
		roots = a.knownRoots()
	}
	from := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return out, sdk.NewInvalidParams(map[string]any{"error": "not a cursor this agent gave"})
		}
		from = n
	}
	type item struct {
		root string
		in   session.Info
	}
	var all []item
	for _, root := range roots {
		st, err := session.Open(root, session.Options{Warn: func(msg string) { a.log.Warn(msg) }})
		if err != nil {
			continue
		}
		infos, err := st.List()
		if err != nil {
			continue
		}
		for _, in := range infos {
			all = append(all, item{root, in})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].in.Updated.After(all[j].in.Updated) })
	for i := from; i < len(all) && i < from+listPage; i++ {
		in := all[i].in
		upd := in.Updated.UTC().Format("2006-01-02T15:04:05Z")
		info := sdk.SessionInfo{SessionId: sdk.SessionId(in.ID), Cwd: all[i].root, UpdatedAt: &upd}
		if title := sessionTitle(strings.TrimSpace(in.FirstPrompt)); title != "" {
			info.Title = &title // as session_info_update named it
		}
		out.Sessions = append(out.Sessions, info)
	}
	if from+listPage < len(all) {
		next := strconv.Itoa(from + listPage)
		out.NextCursor = &next
	}
	return out, nil
}

// knownRoots are the workspaces of this connection, sorted.
func (a *Agent) knownRoots() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, 0, len(a.roots))
	for r := range a.roots {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// sessionTitle is a session's title: its last prompt's first line, cut.
func sessionTitle(prompt string) string {
	line := prompt
	for i, r := range prompt {
		if r == '\n' {
			line = prompt[:i]
			break
		}
	}
	if len(line) > 80 {
		return textcut.Head(line, 80) + "…"
	}
	return line
}

// deleteSession is session/delete (ACP v1, stable since June 2026; the Go
// SDK v0.13.0 has neither the method nor its capability, so both are
// handled on the wire): the session ends if it runs here, and its record
// leaves every workspace this connection knows. An unknown session is no
// error, as the protocol asks.
func (a *Agent) deleteSession(ctx context.Context, id string) error {
	if !session.ValidID(id) {
		return nil // no session can have that ID
	}
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if s != nil {
		if err := s.close(ctx); err != nil {
			return err
		}
	}
	var errs []error
	for _, root := range a.knownRoots() {
		st, err := session.Open(root, session.Options{})
		if err != nil {
			continue
		}
		errs = append(errs, st.Delete(id))
	}
	return errors.Join(errs...)
}

// onWire answers what the SDK cannot: initialize (to advertise
// session/delete, which sdk.SessionCapabilities has no field for) and
// session/delete itself.
func (a *Agent) onWire(method string, id, params json.RawMessage) []byte {
	switch method {
	case sdk.AgentMethodInitialize:
		var p sdk.InitializeRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return reply(id, nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()}))
		}
		if err := p.Validate(); err != nil {
			return reply(id, nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()}))
		}
		res, err := a.Initialize(context.Background(), p)
		if err != nil {
			return reply(id, nil, err)
		}
		return reply(id, withDeleteCapability(res), nil)
	case sdk.AgentMethodSessionNew, sdk.AgentMethodSessionLoad, sdk.AgentMethodSessionResume, sdk.AgentMethodSessionFork:
		// Once the client has the session (the answer is written), it
		// hears of the session's commands and title.
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(params, &p)
		a.wire.onAnswer(id, func(result json.RawMessage) {
			var r struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(result, &r)
			sid := p.SessionID
			if r.SessionID != "" {
				sid = r.SessionID
			}
			if !a.begin() {
				return
			}
			go func() {
				defer a.running.Done()
				defer recoverLog(a.log, "announcing a session")
				a.announce(sid)
			}()
		})
		return nil
	case "session/delete":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(params, &p); err != nil || p.SessionID == "" {
			return reply(id, nil, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"}))
		}
		if !a.begin() {
			return reply(id, nil, sdk.NewInternalError(map[string]any{"error": "the connection is ending"}))
		}
		// Closing a running session waits for its prompt: not on the
		// goroutine that reads the client's messages.
		// $/cancel_request for it cancels its wait for the session's
		// prompt to end.
		ctx, stop := a.wire.serve(id)
		go func() {
			defer a.running.Done()
			defer stop()
			var err error
			func() {
				defer barrier(a.log, "session/delete", &err)
				err = a.deleteSession(ctx, p.SessionID)
			}()
			if err != nil {
				a.log.Warn("session/delete", zap.Error(err))
			}
			_, _ = a.wire.Write(reply(id, map[string]any{}, err))
		}()
		return []byte{} // answered by the goroutine
	}
	return nil
}

// withDeleteCapability is the initialize answer with
// agentCapabilities.sessionCapabilities.delete set.
func withDeleteCapability(res sdk.InitializeResponse) any {
	b, err := json.Marshal(res)
	if err != nil {
		return res
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return res
	}
	caps, _ := m["agentCapabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		m["agentCapabilities"] = caps
	}
	sc, _ := caps["sessionCapabilities"].(map[string]any)
	if sc == nil {
		sc = map[string]any{}
		caps["sessionCapabilities"] = sc
	}
	sc["delete"] = map[string]any{}
	return m
}

// toWireError is err as a JSON-RPC error object.
func toWireError(err error) *sdk.RequestError {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	if errors.Is(err, context.Canceled) {
		return sdk.NewRequestCancelled(map[string]any{"error": err.Error()})
	}
	return sdk.NewInternalError(map[string]any{"error": err.Error()})
}

// announce tells the client a session's commands and, when it has one,
// its title.
func (a *Agent) announce(id string) {
	a.mu.Lock()
	s := a.sessions[id]
	a.mu.Unlock()
	if s == nil {
		return
	}
	out := a.newStream(s)
	out.send(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: a.availableCommands(s.root)}})
	s.mu.Lock()
	title := s.title
	s.mu.Unlock()
	if title != "" {
		out.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: &title}})
	}
}
