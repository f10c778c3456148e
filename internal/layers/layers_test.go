package layers

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	"internal/config":      {"internal/policy"}, // the default secret files
	"internal/edits":       {},
	"internal/logging":     {},
	"internal/policy":      {},
	"internal/textcut":     {},
	"internal/proc":        {"internal/policy", "internal/textcut"}, // the secret files: policy.Secrets
	"internal/prompts":     {"internal/textcut", "internal/wsread"}, // a project's own prompts
	"internal/wsread":      {"internal/policy", "internal/textcut"}, // the one reader of workspace text for the model
	"internal/layers":      {},
	"internal/llm/llmhttp": {"internal/textcut"},
	// What agentls knows of models beside their protocols: the model list,
	// prices, image support, the scrubbing wrapper.
	"internal/llm":           {"internal/agent", "internal/config", "internal/policy", "internal/textcut"},
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
	"internal/verify/gate": {"internal/edits", "internal/agent", "internal/proc", "internal/textcut", "internal/verify"},
	"internal/approval":    {"internal/agent", "internal/config", "internal/policy", "internal/proc", "internal/tools"},
	// Hooks in the shared format (Claude Code's, Codex's), run through proc.
	"internal/hooks": {"internal/agent", "internal/proc", "internal/textcut"},
	// The explore tool: a nested task on the core's driver.
	"internal/subagent": {"internal/agent", "internal/driver", "internal/textcut"},
	// The one assembly path.
	"internal/assemble": {"internal/llm", "internal/edits", "internal/agent", "internal/config", "internal/driver", "internal/llm/chat", "internal/llm/responses",
		"internal/mcp", "internal/policy", "internal/proc", "internal/review", "internal/session", "internal/tools", "internal/verify", "internal/textcut", "internal/verify/gate",
		"internal/worktree", "internal/approval", "internal/subagent", "internal/hooks", "internal/prompts", "internal/wsread"},
	// Delegated jobs: the NATS JetStream queue, the worker, the results;
	// beside assemble, below the front ends that submit and fetch.
	"internal/delegate": {"internal/agent", "internal/config", "internal/proc", "internal/session", "internal/textcut", "internal/worktree"},
	// Front ends: the assembly path and the core, never each other; the
	// driver and the verify gate they reach through assemble (exposed.go).
	"internal/acp": {"internal/llm", "internal/apply", "internal/agent", "internal/assemble", "internal/prompts", "internal/config", "internal/delegate", "internal/logging",
		"internal/mcp", "internal/policy", "internal/proc", "internal/render", "internal/review", "internal/session", "internal/textcut", "internal/tools", "internal/approval",
		"internal/worktree", "internal/wsread"},
	// The bridge's ACP client, the LSP front end's backend for an external
	// agent: apart from the ACP agent, so that lsp does not link it.
	"internal/acpclient": {"internal/agent", "internal/assemble", "internal/config", "internal/driver", "internal/policy",
		"internal/proc", "internal/session", "internal/textcut", "internal/tools", "internal/approval"},
	"internal/cli": {"internal/apply", "internal/agent", "internal/assemble", "internal/prompts", "internal/config", "internal/delegate", "internal/edits", "internal/render", "internal/review",
		"internal/llm/record", "internal/logging", "internal/policy", "internal/session", "internal/tools", "internal/textcut", "internal/approval",
		"internal/worktree"},
	"internal/lsp": {"internal/llm", "internal/apply", "internal/acpclient", "internal/agent", "internal/assemble", "internal/prompts", "internal/config", "internal/delegate",
		"internal/edits", "internal/mcp", "internal/render", "internal/review", "internal/session", "internal/tools", "internal/verify", "internal/textcut", "internal/approval",
		"internal/worktree", "internal/wsread"},
	// agentls doctor: a front end that only asks (the settings, the
	// endpoint through the real backend, the sandbox's probes, trust).
	"internal/doctor": {"internal/llm", "internal/render", "internal/agent", "internal/assemble", "internal/config", "internal/policy", "internal/proc", "internal/session"},
	// The evaluation harness: runs the agentls binary on tasks, through a
	// recording proxy, against the endpoint or the scripted model.
	"internal/eval": {"internal/llm", "internal/assemble", "internal/config", "internal/llm/responses", "internal/proc", "internal/testkit/fakellm"},
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
	"internal/testkit/need":       {},                                 // a missing tool: a skip here, a failure in CI
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

// No production function is unreachable from the module's commands:
// deadcode (golang.org/x/tools/cmd/deadcode, a tool of go.mod) builds the
// call graph of every main package by rapid type analysis and lists the
// functions nothing reaches. A function only tests call is dead code with
// a test; the test-only packages (internal/testkit) are not production.
func TestNoDeadCode(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "deadcode", "./...")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool deadcode: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" || strings.HasPrefix(line, "internal/testkit/") {
			continue
		}
		// internal/x/y.go:12:6: unreachable func: Name
		t.Errorf("%s (delete it, or its test's only caller is the test)", line)
	}
}

// longInFlight are the production functions over maxFuncLines in packages
// other branches were rewriting when this test came; each is split when its
// branch lands.
var longInFlight = map[string]bool{}

const (
	maxFileLines = 600
	maxFuncLines = 120
)

// A reader finds each thing in one place when no production file is over
// 600 lines and no function over 120 (tests and the test-only packages
// under internal/testkit are not held to it).
func TestFileAndFunctionSizes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (rel == "internal/testkit" || rel == "e2e" || d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			t.Errorf("%s is %d lines, over %d: split it by responsibility", rel, n, maxFileLines)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				typ := fd.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if ix, ok := typ.(*ast.IndexExpr); ok {
					typ = ix.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > maxFuncLines && !longInFlight[rel+": "+name] {
				t.Errorf("%s: %s is %d lines, over %d", rel, name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tree is the package tree p belongs to: internal/x for internal/x/...,
// internal/testkit/x for a test double. A package stands where its path
// says, in its tree's layer.
func tree(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 2 && parts[1] == "testkit" {
		return strings.Join(parts[:3], "/")
	}
	return strings.Join(parts[:min(2, len(parts))], "/")
}

// No package imports one above it: with every package in its tree's layer
// (a package under internal/policy in policy's), the imports between trees form
// no cycle. A subpackage that imports what imports its parent tree
// (approval, under the leaf policy, imported tools, proc and config) runs
// back up the layers, and this fails with the cycle.
func TestNoPackageImportsOneAbove(t *testing.T) {
	edges := map[string]map[string]bool{}
	for pkg, deps := range allowed {
		from := tree(pkg)
		for _, d := range deps {
			if to := tree(d); to != from {
				if edges[from] == nil {
					edges[from] = map[string]bool{}
				}
				edges[from][to] = true
			}
		}
	}
	// The allowed lists are what TestDependenciesPointOneWay holds the
	// real imports to, so a cycle there is a cycle the code may have.
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n string) bool
	visit = func(n string) bool {
		switch state[n] {
		case onPath:
			i := slices.Index(path, n)
			t.Errorf("package trees import each other in a cycle: %s → %s", strings.Join(path[i:], " → "), n)
			return false
		case done:
			return true
		}
		state[n] = onPath
		path = append(path, n)
		next := slices.Sorted(maps.Keys(edges[n]))
		for _, m := range next {
			if !visit(m) {
				return false
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return true
	}
	for _, n := range slices.Sorted(maps.Keys(edges)) {
		if !visit(n) {
			return
		}
	}
}

// holdsServer are the types of internal/lsp allowed to hold the *Server:
// none (progress, taskManager and editorWorkspace did; they hold their
// collaborators now). A feature that needs an exception names it here.
var holdsServer = map[string]bool{}

// maxServerMethods is how many methods lsp.Server has today (108 when
// this test came, 105 once the panic barrier was a type of its own, 10
// once editor, asker, trust, diagnostics, reviewer, worktrees, jobs,
// runner, the task manager, about and the configuration took theirs); it
// may only go down.
// The issue asked for under 40.
const maxServerMethods = 10

// A feature of the language server is a type holding exactly its
// collaborators, never the *Server: a field of type *Server (or Server)
// in any other type of internal/lsp fails here, as does a Server with
// more methods than it has now.
func TestLSPFeaturesDoNotHoldTheServer(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := filepath.Glob("../lsp/*.go")
	if err != nil {
		t.Fatal(err)
	}
	methods, held := 0, map[string]bool{}
	for _, p := range pkgs {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv != nil && len(n.Recv.List) == 1 && isServer(n.Recv.List[0].Type) {
					methods++
				}
			case *ast.TypeSpec:
				st, ok := n.Type.(*ast.StructType)
				if !ok || n.Name.Name == "Server" {
					return true
				}
				for _, fld := range st.Fields.List {
					if isServer(fld.Type) {
						held[n.Name.Name] = true
						if !holdsServer[n.Name.Name] {
							t.Errorf("%s: %s holds the *Server; give it the collaborators it uses instead", fset.Position(fld.Pos()), n.Name.Name)
						}
					}
				}
			}
			return true
		})
	}
	for name := range holdsServer {
		if !held[name] {
			t.Errorf("%s no longer holds the *Server: take it off holdsServer", name)
		}
	}
	if methods > maxServerMethods {
		t.Errorf("lsp.Server has %d methods, more than %d: put the new ones on the feature's own type", methods, maxServerMethods)
	}
	if methods < maxServerMethods {
		t.Logf("lsp.Server has %d methods: lower maxServerMethods to it", methods)
	}
}

func isServer(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "Server"
}
