package cli

// Unit tests of `agentls run`'s own decisions (flags, exit status, the
// workspace it picks, the endpoint check, project commands), so that a
// regression shows without spawning the binary; e2e and cmd/agentls drive
// the same paths through it.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/session"
)

func TestParseRunArgs(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want func(runOptions) bool
		err  string // "" no error; else a part of the message
	}{
		{"task words are joined", []string{"fix", "the", "bug"},
			func(o runOptions) bool { return o.task == "fix the bug" }, ""},
		{"flags after the words", []string{"fix", "it", "--model", "m2", "--dry-run"},
			func(o runOptions) bool { return o.task == "fix it" && o.model == "m2" && o.dryRun }, ""},
		{"flags between the words", []string{"fix", "--max-steps", "3", "it"},
			func(o runOptions) bool { return o.task == "fix it" && o.maxSteps == 3 }, ""},
		{"-- ends the flags", []string{"--json", "--", "say", "--model", "x"},
			func(o runOptions) bool { return o.task == "say --model x" && o.json && o.model == "" }, ""},
		{"-- after a word", []string{"say", "--", "--model", "x", "--json"},
			func(o runOptions) bool { return o.task == "say --model x --json" && !o.json && o.model == "" }, ""},
		{"-- as a flag's value", []string{"--model", "--", "t", "--json"},
			func(o runOptions) bool { return o.task == "t" && o.model == "--" && o.json }, ""},
		{"--allow repeats", []string{"--allow", "go test", "--allow", "make *", "t"},
			func(o runOptions) bool { return slices.Equal(o.allow, []string{"go test", "make *"}) }, ""},
		{"--review marks it set", []string{"--review", "t"},
			func(o runOptions) bool { return o.review && o.reviewSet }, ""},
		{"--review=false is set too", []string{"--review=false", "t"},
			func(o runOptions) bool { return !o.review && o.reviewSet }, ""},
		{"no --review is not set", []string{"t"},
			func(o runOptions) bool { return !o.reviewSet }, ""},
		{"blank words are no task", []string{"  ", ""}, nil, "no task given"},
		{"no task", nil, nil, "no task given"},
		{"negative steps", []string{"--max-steps", "-1", "t"}, nil, "--max-steps must be positive"},
		{"record and replay", []string{"--record", "a", "--replay", "b", "t"}, nil, "--record and --replay exclude each other"},
		{"dry run and review", []string{"--dry-run", "--review", "t"}, nil, "--dry-run and --review exclude each other"},
		{"unknown flag", []string{"--frobnicate", "t"}, nil, "frobnicate"},
		{"bad number", []string{"--max-steps", "many", "t"}, nil, "max-steps"},
		{"empty --allow", []string{"--allow", " ", "t"}, nil, "empty pattern"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			o, err := parseRunArgs(c.args, &stderr)
			if c.err != "" {
				if err == nil || !errors.Is(err, errUsage) || !strings.Contains(trimUsage(err), c.err) {
					t.Fatalf("err = %v, want a usage error saying %q", err, c.err)
				}
				if strings.HasPrefix(trimUsage(err), "usage: ") {
					t.Errorf("the message keeps its prefix: %q", trimUsage(err))
				}
				return
			}
			if err != nil || !c.want(o) {
				t.Fatalf("parseRunArgs(%q) = %+v, %v", c.args, o, err)
			}
		})
	}
}

func TestParseRunArgsHelp(t *testing.T) {
	var stderr bytes.Buffer
	_, err := parseRunArgs([]string{"-h"}, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(stderr.String(), "usage: agentls run") || !strings.Contains(stderr.String(), "-dry-run") {
		t.Errorf("help shows no usage: %q", stderr.String())
	}
}

// Run exits 2 on bad flags and 0 on -h, before it touches anything.
func TestRunExitsOnUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run([]string{"--max-steps", "-2", "t"}, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Errorf("bad flag: exit %d, want %d", code, exitUsage)
	}
	if got := errb.String(); !strings.HasPrefix(got, "agentls run: --max-steps must be positive") {
		t.Errorf("stderr %q", got)
	}
	errb.Reset()
	if code := Run([]string{"--help"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Errorf("--help: exit %d, want 0", code)
	}
}

func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		res  agent.Result
		want int
	}{
		{agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true}, exitOK},
		{agent.Result{Status: agent.StatusOK, Reason: "done"}, exitOK}, // nothing to verify
		{agent.Result{Status: agent.StatusOK, Reason: "verifyFailed"}, exitFailed},
		{agent.Result{Status: agent.StatusError, Reason: "llm"}, exitFailed},
		{agent.Result{Status: agent.StatusError, Reason: "maxSteps"}, exitFailed},
		{agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled"}, exitCancelled},
		// Cancelled wins whatever else the result says.
		{agent.Result{Status: agent.StatusOK, Cancelled: true}, exitCancelled},
	} {
		if got := exitCode(c.res); got != c.want {
			t.Errorf("exitCode(%+v) = %d, want %d", c.res, got, c.want)
		}
	}
}

func TestRefusedEnd(t *testing.T) {
	ok := agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true}
	if got := refusedEnd(ok, nil); got.Status != agent.StatusOK || exitCode(got) != exitOK {
		t.Errorf("nothing refused: %+v", got)
	}
	got := refusedEnd(ok, []string{"curl x (needs the network)", "rm -rf y (asks)"})
	if got.Status != agent.StatusError || got.Reason != "approval" || exitCode(got) != exitFailed {
		t.Errorf("refused: %+v", got)
	}
	for _, want := range []string{"2 commands", "curl x (needs the network)", "rm -rf y (asks)", "--allow"} {
		if !strings.Contains(got.Error, want) {
			t.Errorf("error %q does not say %q", got.Error, want)
		}
	}
	// A run that failed anyway keeps its own reason.
	failed := agent.Result{Status: agent.StatusError, Reason: "llm", Error: "refused"}
	if got := refusedEnd(failed, []string{"x"}); got.Reason != "llm" || got.Error != "refused" {
		t.Errorf("failed run: %+v", got)
	}
}

func TestCheckEndpoint(t *testing.T) {
	for _, c := range []struct {
		base, key string
		err       []string // nil: no error
	}{
		{"https://api.openai.com/v1", "", []string{"AGENTLS_API_KEY", "--base-url", "--replay"}},
		{"https://API.OpenAI.com/v1", "", []string{"AGENTLS_API_KEY"}},
		{"https://api.openai.com/v1", "sk-x", nil},
		{"http://localhost:11434/v1", "", nil}, // a local server needs no key
		{"", "", []string{"is not a URL", "AGENTLS_BASE_URL"}},
		{"localhost:11434", "", []string{"is not a URL"}},
		{"http://", "sk", []string{"is not a URL"}},
		{"::bad", "", []string{"is not a URL"}},
	} {
		cfg := config.Defaults()
		cfg.LLM.BaseURL, cfg.LLM.APIKey = c.base, c.key
		err := checkEndpoint(cfg)
		if (err == nil) != (c.err == nil) {
			t.Errorf("%q key %q: err = %v", c.base, c.key, err)
			continue
		}
		for _, w := range c.err {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q does not say %q", c.base, err, w)
			}
		}
		if err != nil && c.key != "" && strings.Contains(err.Error(), c.key) {
			t.Errorf("the key shows in %q", err)
		}
	}
}

// mkdirs makes dirs beneath root and files (with content "x") there.
func mkdirs(t *testing.T, root string, dirs []string, files ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// noMarkerAbove skips a test whose temporary directory lies in a project
// (findRoot would rightly stop there).
func noMarkerAbove(t *testing.T, dir string) {
	t.Helper()
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if hasMarker(d) {
			t.Skipf("%s has a project marker", d)
		}
		if filepath.Dir(d) == d {
			return
		}
	}
}

func TestFindRoot(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	noMarkerAbove(t, tmp)
	mkdirs(t, tmp, []string{"proj/.git", "proj/a/b", "mod/sub/deep", "bare/x", "link/inner"}, "mod/go.mod", "mod/sub/package.json")
	// A marker that is a symlink counts (Lstat), as a worktree's .git file does.
	if err := os.Symlink("/nonexistent", filepath.Join(tmp, "link", "Cargo.toml")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, want string }{
		{"proj/a/b", "proj"},
		{"proj", "proj"},
		{"mod/sub/deep", "mod/sub"}, // the nearest marker, not the outermost
		{"mod", "mod"},
		{"bare/x", "bare/x"}, // none: where it started
		{"link/inner", "link"},
	} {
		if got := findRoot(filepath.Join(tmp, c.from)); got != filepath.Join(tmp, c.want) {
			t.Errorf("findRoot(%s) = %s, want %s", c.from, got, filepath.Join(tmp, c.want))
		}
	}
	for _, c := range []struct {
		dir  string
		want bool
	}{{"proj", true}, {"mod/sub", true}, {"proj/a", false}, {"bare", false}, {"link", true}} {
		if got := hasMarker(filepath.Join(tmp, c.dir)); got != c.want {
			t.Errorf("hasMarker(%s) = %v", c.dir, got)
		}
	}
}

func TestWorkspaceRoot(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	noMarkerAbove(t, tmp)
	mkdirs(t, tmp, []string{"p/src/pkg"}, "p/pyproject.toml")
	if got, err := workspaceRoot("/some/where"); err != nil || got != "/some/where" {
		t.Errorf("--workspace: %q, %v", got, err)
	}
	t.Chdir(filepath.Join(tmp, "p", "src", "pkg"))
	if got, err := workspaceRoot(""); err != nil || got != filepath.Join(tmp, "p") {
		t.Errorf("from a subdirectory: %q, %v; want %s", got, err, filepath.Join(tmp, "p"))
	}
	if got := cwdIn(filepath.Join(tmp, "p")); got != "src/pkg" {
		t.Errorf("cwdIn = %q, want src/pkg", got)
	}
	if got := cwdIn(filepath.Join(tmp, "other")); got != "" {
		t.Errorf("cwdIn outside the root = %q, want \"\"", got)
	}
}

func TestCheckWorkspace(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	t.Setenv("HOME", home+"/") // as a user may set it
	mkdirs(t, home, []string{"proj/.git", "new"})
	for _, c := range []struct {
		name      string
		flag      string
		root      string
		stop      bool
		noProject bool
		say       []string
	}{
		{"the home directory", "", home, true, false, []string{"your home directory " + home, "--workspace " + home}},
		{"the home directory, unclean", "", home + "/proj/..", true, false, []string{"your home directory"}},
		{"the file system", "", "/", true, false, []string{"the whole file system (/)", "--workspace /"}},
		{"named with --workspace", home, home, false, false, nil},
		{"a project", "", filepath.Join(home, "proj"), false, false, nil},
		{"a folder with no marker", "", filepath.Join(home, "new"), false, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			r := &cliRun{o: runOptions{workspace: c.flag}, stdin: strings.NewReader("y\n"), stderr: &stderr}
			code, stop := r.checkWorkspace(c.root)
			if stop != c.stop || (stop && code != exitUsage) || r.noProject != c.noProject {
				t.Fatalf("checkWorkspace(%s) = %d, %v (noProject %v); want stop %v, noProject %v", c.root, code, stop, r.noProject, c.stop, c.noProject)
			}
			// Not a terminal: the "y" on stdin is never read as an answer.
			for _, w := range c.say {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not say %q", stderr.String(), w)
				}
			}
			if !c.stop && stderr.Len() > 0 {
				t.Errorf("said %q", stderr.String())
			}
		})
	}
}

// writeCommand writes a project command .agentls/commands/name.md.
func writeCommand(t *testing.T, root, name, text string) {
	t.Helper()
	dir := filepath.Join(root, ".agentls", "commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExpandCommand(t *testing.T) {
	none := t.TempDir()
	root := t.TempDir()
	writeCommand(t, root, "fix-issue", "---\ndescription: fix one\n---\nFix issue $ARGUMENTS and test it.\n")
	writeCommand(t, root, "tidy", "Tidy the code.\n")
	for _, c := range []struct {
		name, root, task, want, err string
	}{
		{"a command with arguments", root, "/fix-issue 42", "Fix issue 42 and test it.", ""},
		{"arguments appended", root, "/tidy only main.go", "Tidy the code.\n\nonly main.go", ""},
		{"leading blanks", root, "  /tidy", "Tidy the code.", ""},
		{"not a command", root, "fix the bug", "fix the bug", ""},
		{"an existing path stays a sentence", root, "/tmp is full", "/tmp is full", ""},
		{"a mistyped command", root, "/fixissue 42", "", "no project command /fixissue in .agentls/commands; there are: /fix-issue, /tidy"},
		{"no commands: left as typed", none, "/fixissue 42", "/fixissue 42", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var warned []string
			got, err := expandCommand(c.root, c.task, func(w string) { warned = append(warned, w) })
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("expandCommand(%q) = %q, %v; want %q", c.task, got, err, c.want)
			}
			if len(warned) > 0 {
				t.Errorf("warned %q", warned)
			}
		})
	}
}

// A command file that cannot be used is warned about, and the others
// still expand.
func TestExpandCommandWarnsAboutBadFiles(t *testing.T) {
	root := t.TempDir()
	writeCommand(t, root, "good", "Do good.\n")
	writeCommand(t, root, "bad", "not utf-8 \xff\xfe\n")
	var warned []string
	got, err := expandCommand(root, "/good", func(w string) { warned = append(warned, w) })
	if err != nil || got != "Do good." {
		t.Fatalf("expandCommand = %q, %v", got, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "bad.md") {
		t.Errorf("warned %q, want the bad file named", warned)
	}
}

// A task that never reached the model leaves no session and says what to
// check; one that did keeps its session.
func TestEndSetupFailure(t *testing.T) {
	root := t.TempDir()
	store, err := session.Open(root, session.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	begin := func() (string, string, func(agent.Result) bool, func() []string) {
		rec, err := store.Begin(session.Begin{Prompt: "p"})
		if err != nil {
			t.Fatal(err)
		}
		var said []string
		end := func(res agent.Result) bool {
			if err := rec.End(res, nil); err != nil {
				t.Fatal(err)
			}
			return endSetupFailure(rec, res, func(w string) { said = append(said, "warn: "+w) }, func(n string) { said = append(said, n) })
		}
		return rec.Session(), rec.TranscriptPath(), end, func() []string { return said }
	}

	id, transcript, end, said := begin()
	never := agent.Result{Status: agent.StatusError, Reason: "llm", Error: "connection refused"}
	if !end(never) {
		t.Fatal("a task that never reached the model was not handled")
	}
	if _, err := store.Load(id); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("its session is still there: %v", err)
	}
	if _, err := os.Stat(transcript); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its transcript %s is still there: %v", transcript, err)
	}
	if s := said(); len(s) != 1 || !strings.Contains(s[0], "never reached the model") || !strings.Contains(s[0], "llm.baseURL") {
		t.Errorf("said %q", s)
	}

	id, _, end, said = begin()
	reached := agent.Result{Status: agent.StatusError, Reason: "llm", Steps: 1, Error: "stream cut"}
	if end(reached) {
		t.Error("a task that reached the model was forgotten")
	}
	if _, err := store.Load(id); err != nil || len(said()) != 0 {
		t.Errorf("session: %v; said %q", err, said())
	}
	if endSetupFailure(nil, never, nil, nil) {
		t.Error("no session: nothing to forget")
	}
}

func TestAskYesNo(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{{"y\n", true}, {" YES \n", true}, {"n\n", false}, {"\n", false}, {"sure\n", false}, {"", false}} {
		var out bytes.Buffer
		got, err := askYesNo(context.Background(), newLines(strings.NewReader(c.in)), &out, "Go on?")
		if err != nil || got != c.want {
			t.Errorf("answer %q: %v, %v; want %v", c.in, got, err, c.want)
		}
		if out.String() != "Go on? [y/N]: " {
			t.Errorf("asked %q", out.String())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pr, pw := ioPipe(t)
	defer pw.Close()
	if _, err := askYesNo(ctx, newLines(pr), &bytes.Buffer{}, "q"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while waiting: %v", err)
	}
}

// ioPipe is an os.Pipe closed at the end of the test; nothing is written
// to it unless the test does.
func ioPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// expandCommand is assemble.ExpandCommand as agentls run uses it: a
// mistyped command is an error, files left out are warned about.
func expandCommand(root, task string, warn func(string)) (string, error) {
	got, w, err := assemble.ExpandCommand(root, task, nil)
	if w != nil {
		warn(w.Error())
	}
	if err != nil {
		return "", err
	}
	return got, nil
}
