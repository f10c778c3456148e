package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/need"
	"github.com/agentls/agentls/internal/tools"
)

var openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// stdioServer is the test binary run as an MCP server in mode (see TestMain).
func stdioServer(t testing.TB, mode string, env map[string]string, allow ...string) config.MCPServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Under -race a program sleeps a second at exit unless told not to.
	e := map[string]string{serverModeEnv: mode, "GORACE": "atexit_sleep_ms=0"}
	for k, v := range env {
		e[k] = v
	}
	return config.MCPServer{Command: exe, Env: e, Allow: allow}
}

func newManager(t *testing.T, servers map[string]config.MCPServer, opts Options) *Manager {
	t.Helper()
	m := NewManager(servers, opts)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// toolMap lists the manager's tools and fails the test on any error.
func toolMap(t *testing.T, m *Manager) map[string]agent.Tool {
	t.Helper()
	return approvedTools(t, m, nil)
}

// approvedTools is toolMap with the tools bound to approver.
func approvedTools(t *testing.T, m *Manager, approver tools.Approver) map[string]agent.Tool {
	t.Helper()
	list, errs := m.Tools(context.Background(), approver)
	for _, err := range errs {
		t.Errorf("Tools: %v", err)
	}
	byName := map[string]agent.Tool{}
	for _, tl := range list {
		byName[tl.Spec().Name] = tl
	}
	return byName
}

func run(t *testing.T, tl agent.Tool, args string) (string, error) {
	t.Helper()
	if tl == nil {
		t.Fatal("tool not offered")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := tl.Run(ctx, json.RawMessage(args))
	return res.Output, err
}

func mustRun(t *testing.T, tl agent.Tool, args string) string {
	t.Helper()
	out, err := run(t, tl, args)
	if err != nil {
		t.Fatalf("%s %s: %v", tl.Spec().Name, args, err)
	}
	return out
}

// reaped reports whether pid no longer exists, not even as a zombie.
func reaped(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return errors.Is(err, os.ErrNotExist)
}

// exited reports whether pid is gone or a zombie waiting for a reaper
// that is not ours (a grandchild handed to init). SIGKILL takes effect
// asynchronously, so it gives the process up to five seconds to die.
func exited(pid int) bool {
	for range 100 {
		if isExited(pid) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func isExited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

func TestToolsListedWithSchemasAndNames(t *testing.T) {
	// "test.srv" and "test_srv" sanitize to the same prefix: the second
	// server's names must come out distinct anyway.
	m := newManager(t, map[string]config.MCPServer{
		"test.srv": stdioServer(t, "serve", nil, "*"),
		"test_srv": stdioServer(t, "serve", nil, "*"),
	}, Options{})
	list, errs := m.Tools(context.Background(), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// 10 tools each, listed over 5 pages of 2.
	if len(list) != 20 {
		t.Fatalf("got %d tools, want 20", len(list))
	}
	seen := map[string]bool{}
	var names []string
	for _, tl := range list {
		n := tl.Spec().Name
		if !openAIName.MatchString(n) {
			t.Errorf("name %q breaks OpenAI's rules", n)
		}
		if seen[n] {
			t.Errorf("name %q offered twice", n)
		}
		seen[n] = true
		names = append(names, n)
	}
	byName := map[string]agent.Tool{}
	for _, tl := range list {
		byName[tl.Spec().Name] = tl
	}
	add := byName["mcp__test_srv__add"]
	if add == nil {
		t.Fatalf("mcp__test_srv__add missing from %v", names)
	}
	spec := add.Spec()
	if spec.Description != "(MCP server test.srv) Add two numbers." {
		t.Errorf("description %q", spec.Description)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["a"] == nil || schema.Properties["b"] == nil || len(schema.Required) != 2 {
		t.Errorf("schema %s", spec.Parameters)
	}
	if !strings.Contains(string(schema.Properties["a"]), "the first addend") {
		t.Errorf("property a lost its description: %s", schema.Properties["a"])
	}
	if !add.ReadOnly() {
		t.Error("add has readOnlyHint but is not ReadOnly")
	}
	if byName["mcp__test_srv__touch"] == nil || byName["mcp__test_srv__touch"].ReadOnly() {
		t.Error("touch has no readOnlyHint and must not be ReadOnly")
	}
	long := 0
	for _, n := range names {
		if len(n) == 64 && strings.HasPrefix(n, "mcp__test_srv__a_very_long_tool_name_that") {
			long++
		}
	}
	if long != 2 {
		t.Errorf("want both long names cut to 64 with a hash, got %v", names)
	}
	if out := mustRun(t, byName[toolName("test.srv", longToolName)], `{}`); out != "long" {
		t.Errorf("long-named tool answered %q", out)
	}
}

func TestCallRendersResults(t *testing.T) {
	m := newManager(t, map[string]config.MCPServer{"s": stdioServer(t, "serve", nil, "*")}, Options{})
	tl := toolMap(t, m)
	tests := []struct {
		tool, args string
		want       string
		wantErr    string
	}{
		{"add", `{"a": 2, "b": 3.5}`, "5.5", ""},
		{"media", `{}`, "a picture:\n[image: image/png, 4 bytes]\n[resource: file:///notes.txt]\nthe notes", ""},
		{"media", ``, "a picture:\n[image: image/png, 4 bytes]\n[resource: file:///notes.txt]\nthe notes", ""}, // no arguments: {}
		{"fail", `{}`, "it went wrong", "it went wrong"},
		{"add", `[1, 2]`, "", "arguments must be a JSON object"},
		{"add", `{"a": `, "", "arguments must be a JSON object"},
		{"add", `{"a": "two", "b": 1}`, "", `has type "string", want "number"`}, // the server's own validation
	}
	for _, tc := range tests {
		out, err := run(t, tl["mcp__s__"+tc.tool], tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s %s: err %v, want %q", tc.tool, tc.args, err, tc.wantErr)
			}
		} else if err != nil {
			t.Errorf("%s %s: %v", tc.tool, tc.args, err)
		}
		if tc.want != "" && out != tc.want {
			t.Errorf("%s %s: output %q, want %q", tc.tool, tc.args, out, tc.want)
		}
	}
}

func TestApproval(t *testing.T) {
	tests := []struct {
		name     string
		allow    []string
		approver string // "yes", "no", "rules" (tools.deny of the tool), "" (nil Approver)
		// serverAllows is what the approver was told about the server's
		// allow list; the approver is asked about every call.
		serverAllows bool
		created      bool
		wantErr      string
	}{
		{name: "denied", approver: "no", wantErr: "refused: not today"},
		{name: "approved", approver: "yes", created: true},
		{name: "no approver", approver: "", wantErr: "no approver is configured"},
		{name: "no approver, allowed", allow: []string{"touch"}, approver: "", created: true},
		{name: "allowed by name", allow: []string{"add", "touch"}, approver: "no", serverAllows: true, created: true},
		{name: "allowed by star", allow: []string{"*"}, approver: "no", serverAllows: true, created: true},
		{name: "other tool allowed", allow: []string{"add"}, approver: "no", wantErr: "refused"},
		{name: "allowed but denied", allow: []string{"touch"}, approver: "rules", serverAllows: true, wantErr: `tools.deny rule "mcp s.touch"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var mu sync.Mutex
			var asked []string
			var approver tools.Approver
			if tc.approver != "" {
				rules := tools.RulesApprover(policy.Rules{Deny: []string{"mcp s.touch"}})
				approver = tools.ApproverFunc(func(ctx context.Context, cmd string) (bool, string, error) {
					call, ok := tools.ToolCallOf(ctx)
					mu.Lock()
					asked = append(asked, fmt.Sprintf("%s %v %v", cmd, ok, call.ServerAllows))
					mu.Unlock()
					if tc.approver == "rules" {
						return rules.Approve(ctx, cmd)
					}
					return call.ServerAllows || tc.approver == "yes", "not today", nil
				})
			}
			m := newManager(t, map[string]config.MCPServer{"s": stdioServer(t, "serve", nil, tc.allow...)},
				Options{Root: root})
			_, err := run(t, approvedTools(t, m, approver)["mcp__s__touch"], `{ "path": "made" }`)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Error(err)
			}
			// The relative path lands in Root: the server's working directory.
			_, statErr := os.Stat(filepath.Join(root, "made"))
			if created := statErr == nil; created != tc.created {
				t.Errorf("file created %v, want %v", created, tc.created)
			}
			var wantAsked []string
			if tc.approver != "" {
				wantAsked = []string{fmt.Sprintf(`mcp s.touch {"path":"made"} true %v`, tc.serverAllows)}
			}
			if strings.Join(asked, "|") != strings.Join(wantAsked, "|") {
				t.Errorf("approver asked %q, want %q", asked, wantAsked)
			}
		})
	}
}

func TestCrashRestartsOnceThenDisables(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "crashed")
	m := newManager(t, map[string]config.MCPServer{
		"s": stdioServer(t, "serve", map[string]string{"MCP_TEST_MARKER": marker}, "*"),
	}, Options{Sandbox: unconfined}) // pids are only meaningful outside the sandbox's PID namespace
	tl := toolMap(t, m)
	pid1, _ := strconv.Atoi(mustRun(t, tl["mcp__s__pid"], `{}`))

	// The first call kills the process; the retry on the restarted one works.
	if out := mustRun(t, tl["mcp__s__crash_once"], `{}`); out != "survived" {
		t.Fatalf("crash_once answered %q", out)
	}
	pid2, _ := strconv.Atoi(mustRun(t, tl["mcp__s__pid"], `{}`))
	if pid2 == pid1 || pid2 == 0 {
		t.Fatalf("pid %d before the crash, %d after: not restarted", pid1, pid2)
	}
	if !reaped(pid1) {
		t.Errorf("crashed server %d was not reaped", pid1)
	}

	// The restart is spent: the next crash disables the server.
	_, err := run(t, tl["mcp__s__crash"], `{}`)
	want := `MCP server "s" crashed twice; disabled for this session`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
	if !strings.Contains(err.Error(), "crash: exiting on request") {
		t.Errorf("error lacks the server's stderr: %v", err)
	}
	if _, err := run(t, tl["mcp__s__add"], `{"a":1,"b":1}`); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("call after disable: err %v, want %q", err, want)
	}
	if !reaped(pid2) {
		t.Errorf("crashed server %d was not reaped", pid2)
	}
}

func TestCrashOnRetryDisables(t *testing.T) {
	m := newManager(t, map[string]config.MCPServer{"s": stdioServer(t, "serve", nil, "*")}, Options{})
	_, err := run(t, toolMap(t, m)["mcp__s__crash"], `{}`)
	if want := `MCP server "s" crashed twice; disabled for this session`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
}

func TestServerKilledBetweenCallsIsRestarted(t *testing.T) {
	m := newManager(t, map[string]config.MCPServer{"s": stdioServer(t, "serve", nil, "*")}, Options{})
	tl := toolMap(t, m)
	pid, _ := strconv.Atoi(mustRun(t, tl["mcp__s__pid"], `{}`))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, tl["mcp__s__add"], `{"a":1,"b":2}`); out != "3" {
		t.Errorf("add after restart: %q", out)
	}
}

func TestFailedServersDoNotBlockOthers(t *testing.T) {
	m := newManager(t, map[string]config.MCPServer{
		"good":    stdioServer(t, "serve", nil, "*"),
		"missing": {Command: "/nonexistent/mcp-server"},
		"fails":   stdioServer(t, "fail", nil),
		"hangs":   stdioServer(t, "hang", nil),
		"down":    {URL: "http://127.0.0.1:1/mcp"},
	}, Options{ConnectTimeout: time.Second})
	list, errs := m.Tools(context.Background(), nil)
	if len(list) != 10 {
		t.Errorf("got %d tools, want the 10 of good", len(list))
	}
	wantErrs := map[string]string{
		"missing": "/nonexistent/mcp-server",
		"fails":   "boom: bad config",
		"hangs":   "deadline exceeded",
		"down":    "127.0.0.1:1",
	}
	if len(errs) != len(wantErrs) {
		t.Errorf("got %d errors, want %d: %v", len(errs), len(wantErrs), errs)
	}
	for name, want := range wantErrs {
		found := false
		for _, err := range errs {
			if strings.Contains(err.Error(), `"`+name+`"`) && strings.Contains(err.Error(), want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error for %s containing %q in %v", name, want, errs)
		}
	}
	var add agent.Tool
	for _, tl := range list {
		if tl.Spec().Name == "mcp__good__add" {
			add = tl
		}
	}
	if out := mustRun(t, add, `{"a":1,"b":2}`); out != "3" {
		t.Errorf("add: %q", out)
	}
	// A failed start is not retried on every turn.
	if _, again := m.Tools(context.Background(), nil); len(again) != len(errs) {
		t.Errorf("second Tools: %v", again)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	m := NewManager(map[string]config.MCPServer{"s": stdioServer(t, "serve", nil, "*")}, Options{Sandbox: unconfined})
	tl := toolMap(t, m)
	server, _ := strconv.Atoi(mustRun(t, tl["mcp__s__pid"], `{}`))
	child, _ := strconv.Atoi(mustRun(t, tl["mcp__s__spawn"], `{}`))
	if server == 0 || child == 0 || isExited(child) {
		t.Fatalf("server %d, child %d", server, child)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !reaped(server) {
		t.Errorf("server %d still exists after Close", server)
	}
	if !exited(child) {
		t.Errorf("server's child %d still runs after Close", child)
		_ = syscall.Kill(child, syscall.SIGKILL)
	}
	if _, err := run(t, tl["mcp__s__add"], `{"a":1,"b":1}`); !errors.Is(err, errClosed) {
		t.Errorf("call after Close: %v", err)
	}
	if _, errs := m.Tools(context.Background(), nil); len(errs) != 1 || !errors.Is(errs[0], errClosed) {
		t.Errorf("Tools after Close: %v", errs)
	}
}

func TestServerEnvironment(t *testing.T) {
	t.Setenv("AGENTLS_API_KEY", "sk-agentls-secret")
	t.Setenv("OPENAI_API_KEY", "sk-openai-secret")
	t.Setenv("MCP_TEST_INHERITED", "from-process")
	t.Setenv("MCP_TEST_OVERRIDE", "from-process")
	tests := []struct {
		name string
		base []string
		want map[string]string
	}{
		{"process env", nil, map[string]string{
			"MCP_TEST_INHERITED": "from-process", "MCP_TEST_GREETING": "hello", "MCP_TEST_OVERRIDE": "from-config",
			"AGENTLS_API_KEY": "(unset)", "OPENAI_API_KEY": "(unset)",
		}},
		{"given env", []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-given", "MCP_TEST_OVERRIDE=given"}, map[string]string{
			"MCP_TEST_INHERITED": "(unset)", "MCP_TEST_GREETING": "hello", "MCP_TEST_OVERRIDE": "from-config",
			"OPENAI_API_KEY": "(unset)",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := stdioServer(t, "serve", map[string]string{"MCP_TEST_GREETING": "hello", "MCP_TEST_OVERRIDE": "from-config"}, "getenv")
			m := newManager(t, map[string]config.MCPServer{"s": srv}, Options{Env: tc.base})
			getenv := toolMap(t, m)["mcp__s__getenv"]
			for name, want := range tc.want {
				if got := mustRun(t, getenv, `{"name":"`+name+`"}`); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestURLServers(t *testing.T) {
	tests := []struct {
		name    string
		handler func(func(*http.Request) *sdk.Server) http.Handler
	}{
		{"streamable", func(f func(*http.Request) *sdk.Server) http.Handler { return sdk.NewStreamableHTTPHandler(f, nil) }},
		{"sse fallback", func(f func(*http.Request) *sdk.Server) http.Handler { return sdk.NewSSEHandler(f, nil) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Only tools that leave the test process alive are called.
			srv := testServer()
			hs := httptest.NewServer(tc.handler(func(*http.Request) *sdk.Server { return srv }))
			defer hs.Close()
			m := newManager(t, map[string]config.MCPServer{"web": {URL: hs.URL, Allow: []string{"add"}}}, Options{})
			tl := toolMap(t, m)
			if len(tl) != 10 {
				t.Errorf("got %d tools, want 10", len(tl))
			}
			if out := mustRun(t, tl["mcp__web__add"], `{"a":20,"b":22}`); out != "42" {
				t.Errorf("add: %q", out)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A manager outlives tasks and setting changes: each task's tools ask that
// task's approver. Before the fix the manager kept the approver it was made
// with, so a tools.deny added later never reached MCP calls.
func TestApproverFollowsTheTask(t *testing.T) {
	root := t.TempDir()
	m := newManager(t, map[string]config.MCPServer{"s": stdioServer(t, "serve", nil)}, Options{Root: root})
	yes := tools.ApproverFunc(func(context.Context, string) (bool, string, error) { return true, "", nil })
	no := tools.ApproverFunc(func(context.Context, string) (bool, string, error) { return false, "denied by the new policy", nil })
	if _, err := run(t, approvedTools(t, m, yes)["mcp__s__touch"], `{"path": "first"}`); err != nil {
		t.Fatalf("first task, approver yes: %v", err)
	}
	_, err := run(t, approvedTools(t, m, no)["mcp__s__touch"], `{"path": "second"}`)
	if err == nil || !strings.Contains(err.Error(), "denied by the new policy") {
		t.Fatalf("second task, approver no: err %v, want the new policy's refusal", err)
	}
	if _, statErr := os.Stat(filepath.Join(root, "second")); statErr == nil {
		t.Error("the second task's call ran although its approver said no")
	}
}

// unconfined runs servers outside the sandbox, for tests of pids.
var unconfined = proc.Sandbox{Mode: proc.ModeOff}

// A stdio server runs in the sandbox like run_command: it cannot write
// outside the workspace. A server whose "sandbox" setting is false can, and
// the user is told.
func TestStdioServerIsSandboxed(t *testing.T) {
	if ok, why := proc.Available(); !ok {
		need.Missing(t, "sandbox unavailable here: %s", why)
	}
	outside, err := os.MkdirTemp("/var/tmp", "agentls-mcp-outside")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	off := false
	for _, optOut := range []bool{false, true} {
		root := t.TempDir()
		srv := stdioServer(t, "serve", nil, "*")
		if optOut {
			srv.Sandbox = &off
		}
		var warned []string
		m := newManager(t, map[string]config.MCPServer{"s": srv}, Options{Root: root, Warn: func(m string) { warned = append(warned, m) }})
		target := filepath.Join(outside, fmt.Sprintf("made-%v", optOut))
		_, err := run(t, toolMap(t, m)["mcp__s__touch"], fmt.Sprintf(`{"path": %q}`, target))
		_, statErr := os.Stat(target)
		switch {
		case !optOut && (err == nil || statErr == nil):
			t.Errorf("sandboxed server wrote outside the workspace (err %v)", err)
		case optOut && (err != nil || statErr != nil):
			t.Errorf("opted-out server could not write %s: %v", target, err)
		case optOut && (len(warned) != 1 || !strings.Contains(warned[0], "outside the sandbox")):
			t.Errorf("the user was not told about the opt-out: %q", warned)
		}
	}
}
