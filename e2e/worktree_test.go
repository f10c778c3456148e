package e2e

import (
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
	"github.com/agentls/agentls/internal/testkit/need"
)

// commitAll makes the workspace a git repository with one commit.
func commitAll(t *testing.T, root string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		need.Missing(t, "no git")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// gitOut runs git in root and returns its output.
func gitOut(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

type worktreeEntry struct {
	ID      string   `json:"id"`
	TaskID  string   `json:"taskId"`
	State   string   `json:"state"`
	Path    string   `json:"path"`
	Branch  string   `json:"branch"`
	Pending []string `json:"pending"`
}

func worktrees(t *testing.T, s *session) []worktreeEntry {
	t.Helper()
	var out struct {
		Worktrees []worktreeEntry `json:"worktrees"`
	}
	if err := s.Command(s.ctx, "agentls.worktrees", map[string]any{}, &out); err != nil {
		t.Fatal(err)
	}
	return out.Worktrees
}

type mergeResult struct {
	Merged    int  `json:"merged"`
	Applied   bool `json:"applied"`
	Conflicts []struct {
		URI      string `json:"uri"`
		Proposed string `json:"proposed"`
	} `json:"conflicts"`
}

const calcGo = `// USER:
package calc

// Add adds.
func Add(a, b int) int {
	return a + b
}

// Sub subtracts.
func Sub(a, b int) int {
	return a - b
}
`

// Two worktree tasks edit the same function at once while the user types
// in the same file. Each ends with its proposal and the user's tree is
// untouched until a merge; merging the first applies cleanly, merging the
// second reports the conflict and applies nothing over it; every
// keystroke survives.
func TestWorktreeTasksMergeAndConflict(t *testing.T) {
	// Task A edits Add, then waits (its second answer is slow) while task
	// B edits Add too; the requests are taken in that order because B
	// starts once A's second request is in.
	script := `{"turns":[
 {"toolCalls":[{"id":"a1r","name":"read_file","arguments":"{\"path\":\"calc.go\"}"},{"id":"a1","name":"edit_file","arguments":"{\"path\":\"calc.go\",\"old_string\":\"return a + b\",\"new_string\":\"return b + a // A\"}"}]},
 {"delayMs":1500,"text":"A done."},
 {"toolCalls":[{"id":"b1r","name":"read_file","arguments":"{\"path\":\"calc.go\"}"},{"id":"b1","name":"edit_file","arguments":"{\"path\":\"calc.go\",\"old_string\":\"return a + b\",\"new_string\":\"return a + b + 0 // B\"}"}]},
 {"text":"B done."}]}`
	s := start(t, setup{script: script, files: map[string]string{"calc.go": calcGo},
		settings: map[string]any{"agent": map[string]any{"isolation": "worktree"}}})
	commitAll(t, s.Root)
	if err := s.Open(s.ctx, "calc.go"); err != nil {
		t.Fatal(err)
	}
	typed := ""
	rng := rand.New(rand.NewSource(2))
	typeOne := func() {
		text, _ := s.Text("calc.go")
		end := strings.IndexByte(text, '\n')
		ch := string(rune('a' + rng.Intn(26)))
		if err := s.Type(s.ctx, "calc.go", end, end, ch); err != nil {
			t.Fatal(err)
		}
		typed += ch
	}
	typeOne() // unsaved when the tasks start: the snapshot has it

	idA, err := s.Run(s.ctx, map[string]any{"task": "A: change Add"})
	if err != nil {
		t.Fatal(err)
	}
	for !s.WaitFor(20*time.Millisecond, func() bool { return len(s.LLM.Requests()) >= 2 }) {
		typeOne()
	}
	idB, err := s.Run(s.ctx, map[string]any{"task": "B: change Add"})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]lspclient.TaskResult{}
	done := make(chan lspclient.TaskResult, 2)
	for _, id := range []string{idA, idB} {
		go func() {
			r, _ := s.Wait(s.ctx, id, time.Minute)
			done <- r
		}()
	}
	for len(results) < 2 {
		select {
		case r := <-done:
			results[r.TaskID] = r
		case <-time.After(time.Duration(rng.Intn(3000)) * time.Microsecond):
			typeOne()
		}
	}
	for _, id := range []string{idA, idB} {
		if r := results[id]; r.Status != "ok" {
			t.Fatalf("task %s: %+v", id, r)
		}
	}
	// Nothing reached the user's buffer or disk yet.
	if len(s.Edits()) != 0 {
		t.Fatalf("a worktree task edited the editor's buffers: %d applyEdit", len(s.Edits()))
	}
	if b, _ := os.ReadFile(filepath.Join(s.Root, "calc.go")); string(b) != calcGo {
		t.Fatalf("the user's file changed on disk: %q", b)
	}
	list := worktrees(t, s)
	if len(list) != 2 {
		t.Fatalf("worktrees: %+v", list)
	}
	ids := map[string]worktreeEntry{}
	for _, w := range list {
		ids[w.TaskID] = w
		if w.State != "ended" || len(w.Pending) != 1 || w.Pending[0] != "calc.go" {
			t.Errorf("worktree %+v: want ended with calc.go pending", w)
		}
		if strings.HasPrefix(w.Path, s.Root) {
			t.Errorf("worktree %s is inside the user's tree", w.Path)
		}
	}
	typeOne()

	var m mergeResult
	if err := s.Command(s.ctx, "agentls.worktreeMerge", map[string]any{"id": ids[idA].ID}, &m); err != nil {
		t.Fatal(err)
	}
	if !m.Applied || m.Merged != 1 || len(m.Conflicts) != 0 {
		t.Fatalf("merging A: %+v", m)
	}
	text, _ := s.Text("calc.go")
	if !strings.Contains(text, "return b + a // A") || !strings.HasPrefix(text, "// USER:"+typed+"\n") {
		t.Fatalf("after merging A: %q (typed %q)", text, typed)
	}
	typeOne()

	m = mergeResult{}
	if err := s.Command(s.ctx, "agentls.worktreeMerge", map[string]any{"id": ids[idB].ID}, &m); err != nil {
		t.Fatal(err)
	}
	if m.Merged != 0 || len(m.Conflicts) != 1 || !strings.Contains(m.Conflicts[0].Proposed, "// B") {
		t.Fatalf("merging B: %+v, want its one hunk as a conflict", m)
	}
	after, _ := s.Text("calc.go")
	if strings.Contains(after, "// B") || !strings.Contains(after, "return b + a // A") || !strings.HasPrefix(after, "// USER:"+typed+"\n") {
		t.Fatalf("after merging B: %q", after)
	}
	// The conflict is shown as one: a review diagnostic in the file.
	if !s.WaitFor(5*time.Second, func() bool {
		ds, _ := s.diagsFor(s.URI("calc.go"))
		for _, d := range ds {
			if strings.Contains(diagText(d), "you edited this region since") {
				return true
			}
		}
		return false
	}) {
		ds, _ := s.diagsFor(s.URI("calc.go"))
		t.Errorf("no conflict diagnostic in calc.go: %+v", ds)
	}
	t.Logf("%d keystrokes during two worktree tasks and two merges: none lost", len(typed))
}

// The model is the attacker: a worktree task's run_command and its checks
// try to read the user's own tree (an ignored file that the snapshot left
// out) and another running task's worktree. Neither is visible; the
// task's own worktree is.
func TestWorktreeTaskSeesNeitherTheUserNorTheOtherTask(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	root := copyWorkspace(t, "")
	// The check is the same attack as the command, run by the gate after
	// the task's edit; its output reaches the model as the check's
	// feedback when it fails.
	attack := "cat " + filepath.Join(root, "private", "notes.txt") + " " + filepath.Join(state, "agentls", "worktrees") + "/*/a-only.txt own.txt 2>&1 | tr a-z A-Z; echo DONE-$((6*7))"
	check := attack + "; exit 1"
	script := `{"turns":[
 {"toolCalls":[{"id":"a1","name":"write_file","arguments":"{\"path\":\"a-only.txt\",\"content\":\"apple-secret\\n\"}"}]},
 {"delayMs":3000,"text":"A done."},
 {"toolCalls":[{"id":"b1","name":"write_file","arguments":"{\"path\":\"own.txt\",\"content\":\"own-text\\n\"}"}]},
 {"toolCalls":[{"id":"b2","name":"run_command","arguments":` + jsonString(`{"command":`+jsonString(attack)+`}`) + `}]},
 {"text":"B done."},
 {"text":"B done."},
 {"text":"B done."}]}`
	s := start(t, setup{root: root, script: script,
		files: map[string]string{"private/notes.txt": "user-secret\n", ".gitignore": "private/\n", "main.txt": "x\n"},
		env:   []string{"XDG_STATE_HOME=" + state},
		settings: map[string]any{
			"agent":  map[string]any{"isolation": "worktree", "maxSteps": 8},
			"tools":  map[string]any{"allow": []string{"*"}},
			"verify": map[string]any{"enabled": true, "commands": []string{check}},
		}})
	commitAll(t, s.Root)
	idA, err := s.Run(s.ctx, map[string]any{"task": "task-A-prompt"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(30*time.Second, func() bool { return len(s.LLM.Requests()) >= 2 }) {
		t.Fatal("task A did not write its file")
	}
	idB, err := s.Run(s.ctx, map[string]any{"task": "task-B-prompt"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{idB, idA} {
		if r, err := s.Wait(s.ctx, id, time.Minute); err != nil || r.Status == "running" {
			t.Fatalf("task %s: %+v %v", id, r, err)
		}
	}
	var saw []string
	for _, r := range s.LLM.Requests() {
		b, _ := json.Marshal(r.Body)
		// B's requests: A's own check reads A's own worktree, rightly.
		if strings.Contains(string(b), "DONE-42") && strings.Contains(string(b), "task-B-prompt") {
			saw = append(saw, string(b))
		}
	}
	if len(saw) < 2 {
		t.Fatalf("the command's and the check's output did not reach the model (%d requests)", len(saw))
	}
	for _, b := range saw {
		if strings.Contains(b, "USER-SECRET") {
			t.Errorf("a worktree task read the user's tree")
		}
		if strings.Contains(b, "APPLE-SECRET") {
			t.Errorf("a worktree task read the other task's worktree")
		}
	}
	for _, b := range saw {
		if !strings.Contains(b[strings.LastIndex(b, "DONE-42")-300:], "OWN-TEXT") {
			t.Errorf("the task could not read its own worktree")
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Discard removes the worktree and its branch, and a task still running
// in it (here a command it runs in the sandbox) is stopped first: nothing
// is left behind.
func TestWorktreeDiscardLeavesNothing(t *testing.T) {
	const marker = "sleep 613"
	script := `{"turns":[
 {"toolCalls":[{"id":"a1","name":"run_command","arguments":"{\"command\":\"` + marker + `\"}"}]},
 {"text":"never"}]}`
	s := start(t, setup{script: script, files: map[string]string{"a.txt": "a\n"},
		settings: map[string]any{"agent": map[string]any{"isolation": "worktree"}, "tools": map[string]any{"allow": []string{"*"}}}})
	commitAll(t, s.Root)
	id, err := s.Run(s.ctx, map[string]any{"task": "loiter"})
	if err != nil {
		t.Fatal(err)
	}
	running := func() bool { return processWith(marker) }
	if !s.WaitFor(30*time.Second, running) {
		t.Fatal("the task's command did not start")
	}
	list := worktrees(t, s)
	if len(list) != 1 || list[0].State != "running" || list[0].TaskID != id {
		t.Fatalf("worktrees: %+v", list)
	}
	path := list[0].Path
	if err := s.Command(s.ctx, "agentls.worktreeDiscard", map[string]any{"id": list[0].ID}, nil); err != nil {
		t.Fatal(err)
	}
	if running() {
		t.Errorf("the task's command outlived the discard")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if b := gitOut(t, s.Root, "branch", "--list", "agentls/*"); b != "" {
		t.Errorf("branch left: %q", b)
	}
	if wl := gitOut(t, s.Root, "worktree", "list"); strings.Contains(wl, path) {
		t.Errorf("git still lists it: %s", wl)
	}
	if l := worktrees(t, s); len(l) != 0 {
		t.Errorf("still listed: %+v", l)
	}
	if r, _ := s.Wait(s.ctx, id, 10*time.Second); r.Status != "cancelled" {
		t.Errorf("the task: %+v", r)
	}
}

// A server killed mid-task leaves its worktree; the next server lists it
// as interrupted, can merge what the task had done, and discard it.
func TestWorktreeLeftByACrashIsListedAndCleaned(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	root := copyWorkspace(t, "")
	script := `{"turns":[
 {"toolCalls":[{"id":"a1r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"a1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"delayMs":60000,"text":"never"}]}`
	s := start(t, setup{root: root, script: script, files: map[string]string{"a.txt": "alpha\nbeta\n"}, env: []string{"XDG_STATE_HOME=" + state},
		settings: map[string]any{"agent": map[string]any{"isolation": "worktree"}}})
	commitAll(t, root)
	if _, err := s.Run(s.ctx, map[string]any{"task": "shout"}); err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(30*time.Second, func() bool { return len(s.LLM.Requests()) >= 2 }) {
		t.Fatal("the task did not edit")
	}
	s.Kill()

	s2 := start(t, setup{root: root, script: `{"turns":[]}`, env: []string{"XDG_STATE_HOME=" + state}})
	list := worktrees(t, s2)
	if len(list) != 1 || list[0].State != "interrupted" {
		t.Fatalf("after the crash: %+v", list)
	}
	if err := s2.Open(s2.ctx, "a.txt"); err != nil {
		t.Fatal(err)
	}
	var m mergeResult
	if err := s2.Command(s2.ctx, "agentls.worktreeMerge", map[string]any{"id": list[0].ID}, &m); err != nil {
		t.Fatal(err)
	}
	if text, _ := s2.Text("a.txt"); m.Merged != 1 || text != "ALPHA\nbeta\n" {
		t.Fatalf("merge of the interrupted task: %+v, a.txt %q", m, text)
	}
	path := list[0].Path
	if err := s2.Command(s2.ctx, "agentls.worktreeDiscard", map[string]any{"id": list[0].ID}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if b := gitOut(t, root, "branch", "--list", "agentls/*"); b != "" {
		t.Errorf("branch left: %q", b)
	}
	if l := worktrees(t, s2); len(l) != 0 {
		t.Errorf("still listed: %+v", l)
	}
}

// Without a git repository, a worktree task says so and runs in the
// user's tree (agent.isolation "none").
func TestWorktreeFallsBackWithoutGit(t *testing.T) {
	s := start(t, setup{workspace: "", script: "read-edit.json", files: map[string]string{"hello.txt": "hello world\n"},
		settings: map[string]any{"agent": map[string]any{"isolation": "worktree"}}})
	r := s.run(t, map[string]any{"task": "say goodbye"})
	if r.Status != "ok" {
		t.Fatalf("task: %+v", r)
	}
	if len(s.Edits()) == 0 {
		t.Errorf("the task did not edit the editor's files")
	}
	warned := false
	for _, n := range s.Notes("window/showMessage") {
		if strings.Contains(string(n.Params), "without isolation") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning that the task runs without isolation")
	}
}

// continueScenario starts a server with a.txt (text, committed and open)
// and a worktree task that has shouted alpha; the script's next task,
// asked "... and omega", shouts omega.
func continueScenario(t *testing.T, text string) *session {
	t.Helper()
	script := `{"turns":[
 {"toolCalls":[{"id":"a1r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"a1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"text":"first done."},
 {"expect":{"lastUserContains":"and omega"},"toolCalls":[{"id":"a2r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"a2","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"omega\",\"new_string\":\"OMEGA\"}"}]},
 {"text":"second done."}]}`
	s := start(t, setup{script: script, files: map[string]string{"a.txt": text},
		settings: map[string]any{"agent": map[string]any{"isolation": "worktree"}}})
	commitAll(t, s.Root)
	if err := s.Open(s.ctx, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if r := s.run(t, map[string]any{"task": "shout alpha"}); r.Status != "ok" {
		t.Fatalf("first: %+v", r)
	}
	return s
}

// A follow-up continues in the same worktree and session: its proposal is
// the worktree's whole change since the snapshot, the first task's edit
// included, and replaces the first one's.
func TestWorktreeContinue(t *testing.T) {
	s := continueScenario(t, "alpha\nmid\nomega\n")
	list := worktrees(t, s)
	if len(list) != 1 {
		t.Fatalf("worktrees: %+v", list)
	}
	var started struct {
		TaskID string `json:"taskId"`
	}
	if err := s.Command(s.ctx, "agentls.worktreeContinue", map[string]any{"id": list[0].ID, "task": "and omega"}, &started); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Wait(s.ctx, started.TaskID, 30*time.Second); err != nil || r.Status != "ok" || r.Session != list[0].ID {
		t.Fatalf("follow-up: %+v %v", r, err)
	}
	if l := worktrees(t, s); len(l) != 1 || l[0].TaskID != started.TaskID {
		t.Fatalf("after the follow-up: %+v", l)
	}
	var m mergeResult
	if err := s.Command(s.ctx, "agentls.worktreeMerge", map[string]any{"id": list[0].ID}, &m); err != nil {
		t.Fatal(err)
	}
	if text, _ := s.Text("a.txt"); m.Merged != 2 || text != "ALPHA\nmid\nOMEGA\n" {
		t.Fatalf("merge: %+v, a.txt %q", m, text)
	}
	if l := worktrees(t, s); l[0].State != "merged" {
		t.Errorf("after merging: %+v", l)
	}
}

// agentls run --isolation worktree leaves the workspace as it is and the
// change in a worktree; agentls worktrees lists it, merges it three-way
// into the files on disk (the user's edit made meanwhile stays, the hunk
// over it is a conflict) and discards it.
func TestCLIWorktreeRunMergeDiscard(t *testing.T) {
	root := copyWorkspace(t, "")
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\nmid\nomega\n"), 0o644)
	commitAll(t, root)
	state := filepath.Join(t.TempDir(), "state")
	_, base := startModel(t, `{"turns":[
 {"toolCalls":[{"id":"a1r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"a1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"alpha\\nmid\\nomega\",\"new_string\":\"ALPHA\\nmid\\nOMEGA\"}"}]},
 {"text":"done."}]}`)
	env := append(cleanEnv(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+state)
	agentls := func(args ...string) (string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := agentls("run", "--base-url", base, "--no-verify", "--isolation", "worktree", "shout")
	if code != 0 || !strings.Contains(out, "+ALPHA") || !strings.Contains(out, "agentls worktrees merge") {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "alpha\nmid\nomega\n" {
		t.Fatalf("the workspace changed: %q", b)
	}
	out, _ = agentls("worktrees", "list", "--json")
	var list []worktreeEntry
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].State != "ended" {
		t.Fatalf("list: %v\n%s", err, out)
	}
	// The user edits the omega line meanwhile.
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\nmid\nomXga\n"), 0o644)
	out, code = agentls("worktrees", "merge", list[0].ID)
	if code != 1 || !strings.Contains(out, "conflict: a.txt:3") || !strings.Contains(out, "merged 1 hunk") {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "ALPHA\nmid\nomXga\n" {
		t.Fatalf("after the merge: %q", b)
	}
	if out, code = agentls("worktrees", "discard", list[0].ID); code != 0 {
		t.Fatalf("discard: %d\n%s", code, out)
	}
	if _, err := os.Stat(list[0].Path); !os.IsNotExist(err) {
		t.Errorf("the worktree is left: %v", err)
	}
	if b := gitOut(t, root, "branch", "--list", "agentls/*"); b != "" {
		t.Errorf("branch left: %q", b)
	}
}

// After a merge, a follow-up in the worktree proposes only what it changes
// after that: the merged change is not proposed again (where it would read
// as a conflict with itself).
func TestWorktreeContinueAfterMerge(t *testing.T) {
	s := continueScenario(t, "alpha\nomega\n")
	id := worktrees(t, s)[0].ID
	var m mergeResult
	if err := s.Command(s.ctx, "agentls.worktreeMerge", map[string]any{"id": id}, &m); err != nil || m.Merged != 1 {
		t.Fatalf("first merge: %+v %v", m, err)
	}
	var started struct {
		TaskID string `json:"taskId"`
	}
	if err := s.Command(s.ctx, "agentls.worktreeContinue", map[string]any{"id": id, "task": "and omega"}, &started); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Wait(s.ctx, started.TaskID, 30*time.Second); err != nil || r.Status != "ok" {
		t.Fatalf("follow-up: %+v %v", r, err)
	}
	if l := worktrees(t, s); len(l) != 1 || len(l[0].Pending) != 1 {
		t.Fatalf("after the follow-up: %+v", l)
	}
	m = mergeResult{}
	if err := s.Command(s.ctx, "agentls.worktreeMerge", map[string]any{"id": id}, &m); err != nil {
		t.Fatal(err)
	}
	if text, _ := s.Text("a.txt"); m.Merged != 1 || len(m.Conflicts) != 0 || text != "ALPHA\nOMEGA\n" {
		t.Fatalf("second merge: %+v, a.txt %q", m, text)
	}
}

// Over ACP (the same assemble.Run), a worktree task leaves the client's
// files alone and says where its change waits and how to merge it.
func TestACPWorktreeTask(t *testing.T) {
	script := `{"turns":[
 {"toolCalls":[{"id":"a1r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"a1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"text":"done."}]}`
	r := startACP(t, "", script, false, map[string]any{"agent": map[string]any{"isolation": "worktree"}})
	os.WriteFile(filepath.Join(r.root, "a.txt"), []byte("alpha\n"), 0o644)
	commitAll(t, r.root)
	id := r.newSession(t)
	r.prompt(t, id, "shout")
	if b, _ := os.ReadFile(filepath.Join(r.root, "a.txt")); string(b) != "alpha\n" {
		t.Fatalf("the workspace changed: %q", b)
	}
	wts, _ := filepath.Glob(filepath.Join(r.state, "agentls", "worktrees", "*", "a.txt"))
	if len(wts) != 1 {
		t.Fatalf("worktrees with a.txt: %v", wts)
	}
	if b, _ := os.ReadFile(wts[0]); string(b) != "ALPHA\n" {
		t.Errorf("the worktree's a.txt: %q", b)
	}
	_, _, text := toolCalls(r.client.snapshot())
	if !strings.Contains(text, "/merge ") || !strings.Contains(text, "/discard ") {
		t.Errorf("the client was not told where the change waits: %q", text)
	}
}

// processWith reports whether a process whose command line holds s runs
// (zombies, which have none, do not count).
func processWith(s string) bool {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			return true
		}
	}
	return false
}

// A worktree task's change is reviewed hunk by hunk like review mode: its
// hunks are review diagnostics in the user's file (after a restart too,
// through agentls.worktreeReview), and agentls.accept / agentls.reject
// with its taskId take one hunk each.
func TestWorktreeReviewHunkByHunk(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	root := copyWorkspace(t, "")
	script := `{"turns":[
 {"toolCalls":[{"id":"a1","name":"write_file","arguments":"{\"path\":\"f.txt\",\"content\":\"ALPHA\\nline 2\\nline 3\\nline 4\\nline 5\\nline 6\\nOMEGA\\n\"}"}]},
 {"text":"done."}]}`
	s := start(t, setup{root: root, script: script, files: map[string]string{"f.txt": fText}, env: []string{"XDG_STATE_HOME=" + state},
		settings: map[string]any{"agent": map[string]any{"isolation": "worktree"}}})
	commitAll(t, root)
	if r := s.run(t, map[string]any{"task": "shout both ends"}); r.Status != "ok" {
		t.Fatalf("task: %+v", r)
	}
	_ = s.Close(s.ctx) // a new server reviews it, from the worktree's branch

	s2 := start(t, setup{root: root, script: `{"turns":[]}`, env: []string{"XDG_STATE_HOME=" + state}})
	if err := s2.Open(s2.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	list := worktrees(t, s2)
	if len(list) != 1 || list[0].State != "ended" {
		t.Fatalf("worktrees: %+v", list)
	}
	var rt struct {
		TaskID string `json:"taskId"`
		Review bool   `json:"review"`
	}
	if err := s2.Command(s2.ctx, "agentls.worktreeReview", map[string]any{"id": list[0].ID}, &rt); err != nil || !rt.Review {
		t.Fatalf("worktreeReview: %+v %v", rt, err)
	}
	u := s2.URI("f.txt")
	var ds []protocol.Diagnostic
	if !s2.WaitFor(5*time.Second, func() bool { ds, _ = s2.diagsFor(u); return len(ds) == 2 }) {
		t.Fatalf("review diagnostics: %+v", ds)
	}
	hunk := func(d protocol.Diagnostic) string {
		var data map[string]string
		b, _ := json.Marshal(d.Data)
		_ = json.Unmarshal(b, &data)
		return data["hunk"]
	}
	first, last := ds[0], ds[1]
	if first.Range.Start.Line > last.Range.Start.Line {
		first, last = last, first
	}
	if err := s2.Command(s2.ctx, "agentls.accept", map[string]any{"taskId": rt.TaskID, "uri": u, "hunk": hunk(first)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s2.Command(s2.ctx, "agentls.reject", map[string]any{"taskId": rt.TaskID, "uri": u, "hunk": hunk(last)}, nil); err != nil {
		t.Fatal(err)
	}
	if text, _ := s2.Text("f.txt"); text != strings.Replace(fText, "alpha", "ALPHA", 1) {
		t.Fatalf("after accepting one hunk and rejecting the other: %q", text)
	}
}

// Headless, a worktree task's end line says its change waits, with its
// size and the exact merge command, and the run exits 0 (README, exit
// status); a task that changed nothing there says so. A merge deletes the
// task's branch (it used to stay until the worktree was discarded).
func TestCLIWorktreeEndLineAndMergeDeletesBranch(t *testing.T) {
	root := copyWorkspace(t, "")
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\nmid\nomega\n"), 0o644)
	commitAll(t, root)
	state := filepath.Join(t.TempDir(), "state")
	_, base := startModel(t, `{"turns":[
 {"toolCalls":[{"id":"r1","name":"read_file","arguments":"{\"path\":\"a.txt\"}"}]},
 {"toolCalls":[{"id":"a1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"alpha\\nmid\",\"new_string\":\"ALPHA\\nMID\\nnew\"}"}]},
 {"text":"done."},
 {"text":"nothing to do."}]}`)
	env := append(cleanEnv(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+state)
	agentls := func(args ...string) (string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := agentls("run", "--base-url", base, "--no-verify", "--isolation", "worktree", "shout")
	var list []worktreeEntry
	lo, _ := agentls("worktrees", "list", "--json")
	if err := json.Unmarshal([]byte(lo), &list); err != nil || len(list) != 1 {
		t.Fatalf("list: %v\n%s", err, lo)
	}
	id := list[0].ID
	want := "the change waits in worktree " + id + ": 1 file, +3 -2 lines; merge it with: agentls worktrees merge " + id
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "no files changed") {
		t.Fatalf("run: exit %d, want 0 and an end line with %q\n%s", code, want, out)
	}
	if b := gitOut(t, root, "branch", "--list", "agentls/*"); b == "" {
		t.Fatalf("the task's branch is missing before the merge")
	}
	if out, code = agentls("worktrees", "merge", id); code != 0 || !strings.Contains(out, "0 conflicts") {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "ALPHA\nMID\nnew\nomega\n" {
		t.Fatalf("after the merge: %q", b)
	}
	if b := gitOut(t, root, "branch", "--list", "agentls/*"); b != "" {
		t.Errorf("the merged task's branch is left: %q", b)
	}
	lo, _ = agentls("worktrees", "list", "--json")
	if err := json.Unmarshal([]byte(lo), &list); err != nil || len(list) != 1 || list[0].State != "merged" {
		t.Fatalf("list after the merge: %v\n%s", err, lo)
	}
	if out, code = agentls("worktrees", "discard", id); code != 0 {
		t.Fatalf("discard after the merge: exit %d\n%s", code, out)
	}

	out, code = agentls("run", "--base-url", base, "--no-verify", "--isolation", "worktree", "look")
	if code != 0 || !strings.Contains(out, "no change in worktree") || strings.Contains(out, "waits in") {
		t.Fatalf("a run that changed nothing: exit %d\n%s", code, out)
	}
}

// agent.isolation written to .agentls.json applies to the very next task:
// the run reads it, not the setting the server last saw.
func TestWorktreeSettingAppliesToTheNextTask(t *testing.T) {
	const marker = "sleep 617"
	script := `{"turns":[
 {"toolCalls":[{"id":"a1","name":"run_command","arguments":"{\"command\":\"` + marker + `\"}"}]},
 {"text":"never"}]}`
	s := start(t, setup{script: script, files: map[string]string{"a.txt": "a\n"},
		settings: map[string]any{"tools": map[string]any{"allow": []string{"*"}}}})
	commitAll(t, s.Root)
	if err := os.WriteFile(filepath.Join(s.Root, ".agentls.json"), []byte(`{"agent": {"isolation": "worktree"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "loiter"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(30*time.Second, func() bool { return processWith(marker) }) {
		t.Fatal("the task's command did not start")
	}
	list := worktrees(t, s)
	if len(list) != 1 || list[0].TaskID != id {
		t.Fatalf("the first task after the setting ran in your tree; worktrees: %+v", list)
	}
	if err := s.Command(s.ctx, "agentls.worktreeDiscard", map[string]any{"id": list[0].ID}, nil); err != nil {
		t.Fatal(err)
	}
}
