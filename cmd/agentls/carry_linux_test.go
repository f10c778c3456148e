package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A headless command runs in a view whose writes land in a private layer,
// carried into the tree when it ends and recorded in the task's change
// log: what `sed -i` wrote shows in the session's diff, and
// `agentls sessions rewind` restores it. On the old code the command wrote
// the disk directly: the session held no change, and the rewind left
// a.txt as the command made it.
func TestHeadlessCommandWritesAreCarriedAndRewound(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "one\ntwo\n"})
	script := `{"turns":[
	 {"toolCalls":[{"id":"c1","name":"run_command","arguments":"{\"command\":\"sed -i s/one/ONE/ a.txt && printf 'made\\n' > made.txt\"}"}]},
	 {"text":"done."}]}`
	r := e.run("run", "--json", "--base-url", fakeModel(t, script).URL(), "format it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(e.ws, name))
		if err != nil {
			return "(gone)"
		}
		return string(b)
	}
	if read("a.txt") != "ONE\ntwo\n" || read("made.txt") != "made\n" {
		t.Fatalf("after the task: a=%q made=%q\n%s", read("a.txt"), read("made.txt"), r.stderr)
	}
	lines := jsonLines(t, r.stderr)
	id := lines[0]["session"].(string)
	for _, l := range lines {
		if l["kind"] == "end" {
			if fc := fmt.Sprint(l["result"].(map[string]any)["filesChanged"]); fc != "[a.txt made.txt]" {
				t.Errorf("the task's filesChanged: %s", fc)
			}
		}
	}
	show := e.run("sessions", "show", "--diff", id)
	for _, w := range []string{"a.txt", "-one", "+ONE", "made.txt", "+made"} {
		if !strings.Contains(show.stdout, w) {
			t.Errorf("the session's diff lacks %q:\n%s", w, show.stdout)
		}
	}
	if rw := e.run("sessions", "rewind", id, "0"); rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s%s", rw.code, rw.stdout, rw.stderr)
	}
	if read("a.txt") != "one\ntwo\n" || read("made.txt") != "(gone)" {
		t.Errorf("after the rewind: a=%q made=%q", read("a.txt"), read("made.txt"))
	}
}

// kill -9 while a command's layer of 2,000 files is carried in, then a
// restart: every file is all-new or all-old, and the restart finishes the
// carry (the journal) and says so; a file changed meanwhile makes the
// restart keep the carry aside and name the file, never half-apply it.
// AGENTLS_TEST_CARRY_DELAY_MS slows each file's write so the kill lands
// mid-way. On the old code nothing was journaled: the restart left the
// tree half carried.
func TestCarryKilledMidwayIsWholeOrReported(t *testing.T) {
	for _, changeMeanwhile := range []bool{false, true} {
		t.Run(fmt.Sprint("changed=", changeMeanwhile), func(t *testing.T) {
			const n = 2000
			files := map[string]string{}
			for i := 0; i < n; i++ {
				files[fmt.Sprintf("f%04d.txt", i)] = "old\n"
			}
			e := newEnv(t, files)
			script := `{"turns":[
			 {"toolCalls":[{"id":"c1","name":"run_command","arguments":"{\"command\":\"for f in f*.txt; do echo new > $f; done\"}"}]},
			 {"text":"done."}]}`
			cmd := e.command("run", "--json", "--base-url", fakeModel(t, script).URL(), "rewrite them all")
			cmd.Env = append(cmd.Env, "AGENTLS_TEST_CARRY_DELAY_MS=2")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			count := func() (olds, news int) {
				for i := 0; i < n; i++ {
					b, _ := os.ReadFile(filepath.Join(e.ws, fmt.Sprintf("f%04d.txt", i)))
					switch string(b) {
					case "old\n":
						olds++
					case "new\n":
						news++
					}
				}
				return
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			// Wait until the carry is under way (some files new, not all).
		wait:
			for {
				if _, news := count(); news > 10 {
					break
				}
				select {
				case <-done:
					break wait
				case <-time.After(5 * time.Millisecond):
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			olds, news := count()
			if olds == 0 || news == 0 || olds+news != n {
				t.Fatalf("the kill did not land mid-carry: %d old, %d new", olds, news)
			}
			changed := ""
			if changeMeanwhile {
				// A file not yet carried is changed before the restart.
				for i := n - 1; i >= 0; i-- {
					p := filepath.Join(e.ws, fmt.Sprintf("f%04d.txt", i))
					if b, _ := os.ReadFile(p); string(b) == "old\n" {
						changed = fmt.Sprintf("f%04d.txt", i)
						os.WriteFile(p, []byte("user's\n"), 0o644)
						break
					}
				}
			}
			// Any start of agentls (here a run that ends at once) recovers.
			r := e.run("run", "--json", "--base-url", fakeModel(t, `{"turns":[{"text":"ok"}]}`).URL(), "nothing")
			olds2, news2 := count()
			if !changeMeanwhile {
				if news2 != n || !strings.Contains(r.stderr, "finished a command's writes") {
					t.Errorf("after the restart: %d old, %d new of %d; stderr:\n%s", olds2, news2, n, r.stderr)
				}
			} else {
				if olds2 != olds-1 || news2 != news || !strings.Contains(r.stderr, "NOT finished") || !strings.Contains(r.stderr, changed) {
					t.Errorf("after the restart: %d old, %d new (before: %d, %d); stderr:\n%s", olds2, news2, olds, news, r.stderr)
				}
				kept, _ := filepath.Glob(filepath.Join(e.state, "agentls", "carry", "*.kept"))
				if len(kept) != 1 {
					t.Errorf("the unfinished carry is not kept aside: %v", kept)
				}
			}
			left, _ := filepath.Glob(filepath.Join(e.state, "agentls", "carry", "*.json"))
			tmps, _ := filepath.Glob(filepath.Join(e.ws, "*.agentls-*"))
			hidden, _ := filepath.Glob(filepath.Join(e.ws, ".*.agentls-*"))
			tmps = append(tmps, hidden...)
			if len(left) != 0 || len(tmps) != 0 {
				t.Errorf("left behind: journals %v, temporary files %v", left, tmps)
			}
		})
	}
}
