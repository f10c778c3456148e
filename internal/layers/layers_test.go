package layers

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/agentls/agentls/"

// allowed lists, for each package, the internal packages its non-test
// files may import. A package missing here fails the test, so a new
// package must take its place in the layering on purpose.
var allowed = map[string][]string{
	// The core: pure vocabulary and machine, then the driver.
	"internal/agent":  {"internal/textcut"},
	"internal/driver": {"internal/agent", "internal/textcut", "internal/wsread"},
	// Leaves.
	"internal/config":        {"internal/policy"}, // the default secret files
	"internal/edits":         {},
	"internal/logging":       {},
	"internal/policy":        {},
	"internal/textcut":       {},
	"internal/proc":          {"internal/policy", "internal/textcut"}, // the secret files: policy.Secrets
	"internal/commands":      {"internal/textcut", "internal/wsread"}, // a project's own prompts
	"internal/wsread":        {"internal/policy", "internal/textcut"}, // the one reader of workspace text for the model
	"internal/layers":        {},
	"internal/llm/llmhttp":   {"internal/textcut"},
	"internal/llm/chat":      {"internal/agent", "internal/llm/llmhttp"},
	"internal/llm/responses": {"internal/agent", "internal/llm/llmhttp"},
	"internal/llm/record":    {"internal/agent", "internal/textcut"},
	"internal/render":        {"internal/agent", "internal/textcut"}, // pure: events in, text out
	"internal/session":       {"internal/agent", "internal/edits", "internal/render", "internal/textcut"},
	"internal/review":        {"internal/edits", "internal/textcut"}, // pure: plans, no I/O
	"internal/verify":        {"internal/proc", "internal/textcut"},
	"internal/tools":         {"internal/agent", "internal/policy", "internal/proc", "internal/textcut", "internal/wsread"}, // view_image reads through wsread
	"internal/mcp":           {"internal/agent", "internal/config", "internal/proc", "internal/tools"},
	"internal/worktree":      {"internal/proc"}, // a task's git worktree
	// The one write path to the user's files, below the front ends.
	"internal/apply": {"internal/edits", "internal/tools"},
	// The verify gate (checks → the machine's report) and the approval
	// policy (rules, answers, tools.approval, the sandbox): below assemble,
	// which builds them from the settings.
	"internal/verify/gate":     {"internal/edits", "internal/agent", "internal/proc", "internal/textcut", "internal/verify"},
	"internal/policy/approval": {"internal/config", "internal/policy", "internal/proc", "internal/tools"},
	// Hooks in the shared format (Claude Code's, Codex's), run through proc.
	"internal/hooks": {"internal/agent", "internal/proc"},
	// The explore tool: a nested task on the core's driver.
	"internal/subagent": {"internal/agent", "internal/driver", "internal/textcut"},
	// The one assembly path.
	"internal/assemble": {"internal/edits", "internal/agent", "internal/config", "internal/driver", "internal/llm/chat", "internal/llm/responses",
		"internal/mcp", "internal/policy", "internal/proc", "internal/review", "internal/session", "internal/tools", "internal/verify", "internal/textcut", "internal/verify/gate",
		"internal/worktree", "internal/policy/approval", "internal/subagent", "internal/hooks", "internal/commands", "internal/wsread"},
	// Delegated jobs: the NATS JetStream queue, the worker, the results;
	// beside assemble, below the front ends that submit and fetch.
	"internal/delegate": {"internal/agent", "internal/config", "internal/proc", "internal/session", "internal/worktree"},
	// Front ends: the assembly path and the core, never each other.
	"internal/acp": {"internal/apply", "internal/agent", "internal/assemble", "internal/commands", "internal/config", "internal/delegate", "internal/driver", "internal/logging",
		"internal/mcp", "internal/policy", "internal/proc", "internal/render", "internal/review", "internal/session", "internal/textcut", "internal/tools", "internal/policy/approval", "internal/verify/gate",
		"internal/worktree", "internal/wsread"},
	// The bridge's ACP client, the LSP front end's backend for an external
	// agent: apart from the ACP agent, so that lsp does not link it.
	"internal/acpclient": {"internal/agent", "internal/assemble", "internal/config", "internal/driver", "internal/policy",
		"internal/proc", "internal/session", "internal/textcut", "internal/tools", "internal/policy/approval"},
	"internal/cli": {"internal/apply", "internal/agent", "internal/assemble", "internal/commands", "internal/config", "internal/delegate", "internal/driver", "internal/edits", "internal/render", "internal/review",
		"internal/llm/record", "internal/logging", "internal/policy", "internal/session", "internal/tools", "internal/textcut", "internal/policy/approval", "internal/verify/gate",
		"internal/worktree"},
	"internal/lsp": {"internal/apply", "internal/acpclient", "internal/agent", "internal/assemble", "internal/commands", "internal/config", "internal/delegate", "internal/driver",
		"internal/edits", "internal/mcp", "internal/render", "internal/review", "internal/session", "internal/tools", "internal/verify", "internal/textcut", "internal/policy/approval", "internal/verify/gate",
		"internal/worktree", "internal/wsread"},
	// agentls doctor: a front end that only asks (the settings, the
	// endpoint through the real backend, the sandbox's probes, trust).
	"internal/doctor": {"internal/agent", "internal/assemble", "internal/config", "internal/policy", "internal/proc", "internal/session"},
	// The evaluation harness: runs the agentls binary on tasks, through a
	// recording proxy, against the endpoint or the scripted model.
	"internal/eval": {"internal/assemble", "internal/config", "internal/llm/responses", "internal/proc", "internal/testkit/fakellm"},
	// The reference pages' generator (make docs): reads the tables of the
	// settings, the commands and the event kinds; nothing imports it.
	"internal/docgen":     {"internal/agent", "internal/config", "internal/lsp"},
	"internal/docgen/gen": {"internal/docgen"},
	// Test doubles that speak the real protocols.
	"internal/testkit/fakellm":    {"internal/textcut"},
	"internal/testkit/fakeacp":    {},
	"internal/testkit/codexpatch": {}, // Codex's apply_patch cases as data
	"internal/testkit/llmfaults":  {"internal/agent", "internal/testkit/fakellm"},
	"internal/testkit/lspclient":  {"internal/edits", "internal/lsp"}, // the server's codec
}

func TestDependenciesPointOneWay(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(p, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		ok, known := allowed[rel]
		if !known {
			t.Errorf("%s is not in the layering (internal/layers/layers_test.go, docs/architecture.md)", rel)
			return nil
		}
		seen++
		okSet := map[string]bool{}
		for _, a := range ok {
			okSet[a] = true
		}
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			if !okSet[dep] {
				t.Errorf("%s imports %s, against the layering", rel, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("checked %d packages; the walk went wrong", seen)
	}
}
