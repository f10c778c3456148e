package e2e

// End-to-end benchmarks of the real binary: `agentls run` driven against the
// project's fake model (cmd/fakellm, a separate process that keeps its HTTP
// connections alive). `make bench` builds bin/agentls and bin/fakellm and
// passes them in AGENTLS_BENCH_BIN and FAKELLM_BENCH_BIN; without them the
// benchmarks build their own.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	benchOnce    sync.Once
	benchAgentls string
	benchFakellm string
	benchErr     error
)

// benchBinaries returns the agentls and fakellm binaries the benchmarks run.
func benchBinaries(b *testing.B) (string, string) {
	benchOnce.Do(func() {
		benchAgentls, benchFakellm = os.Getenv("AGENTLS_BENCH_BIN"), os.Getenv("FAKELLM_BENCH_BIN")
		if benchAgentls == "" {
			benchAgentls = binary
		}
		if benchFakellm == "" {
			benchFakellm = filepath.Join(filepath.Dir(binary), "fakellm")
			out, err := exec.Command("go", "build", "-o", benchFakellm, "../cmd/fakellm").CombinedOutput()
			if err != nil {
				benchErr = fmt.Errorf("building fakellm: %v\n%s", err, out)
			}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchAgentls, benchFakellm
}

// fakeModel is a running cmd/fakellm process.
type fakeModel struct {
	cmd  *exec.Cmd
	url  string
	log  string
	stop func()
}

func startFakeModel(b *testing.B, bin string, script []byte) *fakeModel {
	dir := b.TempDir()
	sp := filepath.Join(dir, "script.json")
	if err := os.WriteFile(sp, script, 0o644); err != nil {
		b.Fatal(err)
	}
	logPath := filepath.Join(dir, "fakellm.log")
	cmd := exec.Command(bin, "-script", sp, "-log", logPath)
	stdin, _ := cmd.StdinPipe() // closing it stops the server
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		b.Fatalf("fakellm: %v", err)
	}
	m := &fakeModel{cmd: cmd, url: strings.TrimSpace(line), log: logPath}
	m.stop = func() { _ = stdin.Close(); _ = cmd.Wait() }
	return m
}

// connections counts the TCP connections the fake model accepted.
func (m *fakeModel) connections() int {
	data, _ := os.ReadFile(m.log)
	return strings.Count(string(data), "connection opened")
}

// runStats is what one `agentls run` cost.
type runStats struct {
	wall   time.Duration
	cpu    time.Duration // user + system
	maxRSS int64         // kB
	fsyncs int           // -1 when not counted
}

// agentlsRun runs `agentls run` in root against url; with strace on,
// it counts the fsync family of calls of the whole process tree.
func agentlsRun(b *testing.B, bin, root, url string, withStrace bool, extra ...string) runStats {
	args := append([]string{"run", "--no-verify", "--max-steps", "1000"}, extra...)
	args = append(args, "do the task")
	name := bin
	var straceOut string
	if withStrace {
		straceOut = filepath.Join(b.TempDir(), "strace.txt")
		args = append([]string{"-f", "-c", "-o", straceOut, "-e", "trace=fsync,fdatasync,sync_file_range,syncfs", bin}, args...)
		name = "strace"
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = root
	cmd.Env = []string{
		// Not the workspace: agentls run refuses to work on a home
		// directory with no project in it.
		"HOME=" + filepath.Dir(root), "PATH=" + os.Getenv("PATH"),
		"XDG_STATE_HOME=" + filepath.Join(filepath.Dir(root), "state"),
		"AGENTLS_BASE_URL=" + url, "AGENTLS_MODEL=bench-model",
	}
	if !withStrace {
		// Profiles of the runs measured (cmd/agentls/profile.go); the last run's stays.
		for _, k := range []string{"AGENTLS_CPUPROFILE", "AGENTLS_MEMPROFILE"} {
			if v := os.Getenv(k); v != "" {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	began := time.Now()
	err := cmd.Run()
	wall := time.Since(began)
	if err != nil {
		b.Fatalf("agentls run: %v\n%s", err, stderr.String())
	}
	st := runStats{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), fsyncs: -1}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		st.maxRSS = ru.Maxrss
	}
	if withStrace {
		st.fsyncs = countSyncs(b, straceOut)
	}
	return st
}

var straceRow = regexp.MustCompile(`^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync|sync_file_range|syncfs)\s*$`)

func countSyncs(b *testing.B, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if m := straceRow.FindStringSubmatch(l); m != nil {
			c, _ := strconv.Atoi(m[1])
			n += c
		}
	}
	return n
}

func haveStrace() bool { _, err := exec.LookPath("strace"); return err == nil }

// BenchmarkE2EOneTurn: a one-turn `agentls run` (the model answers with
// text at once), wall time per run, next to `agentls version` on the same
// machine. The median is reported: one slow start on a busy machine says
// nothing about agentls.
func BenchmarkE2EOneTurn(b *testing.B) {
	bin, fake := benchBinaries(b)
	const runs = 9
	var walls, versions []time.Duration
	var cpu time.Duration
	var rss int64
	for range b.N {
		script := `{"turns":[` + strings.Repeat(`{"text":"Nothing to change: the workspace is fine."},`, runs) + `{"text":"x"}]}`
		m := startFakeModel(b, fake, []byte(script))
		root := filepath.Join(b.TempDir(), "ws")
		_ = os.MkdirAll(root, 0o755)
		_ = os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\n"), 0o644)
		for range runs {
			st := agentlsRun(b, bin, root, m.url, false)
			walls = append(walls, st.wall)
			cpu += st.cpu
			rss = max(rss, st.maxRSS)
			began := time.Now()
			if err := exec.Command(bin, "version").Run(); err != nil {
				b.Fatal(err)
			}
			versions = append(versions, time.Since(began))
		}
		m.stop()
	}
	run, ver := median(walls), median(versions)
	b.ReportMetric(ms(run), "ms-run-median")
	b.ReportMetric(ms(ver), "ms-version-median")
	b.ReportMetric(float64(run)/float64(ver), "x-version")
	b.ReportMetric(ms(cpu)/float64(len(walls)), "ms-cpu/run")
	b.ReportMetric(float64(rss)/1024, "MB-rss")
	if haveStrace() {
		m := startFakeModel(b, fake, []byte(`{"turns":[{"text":"done"}]}`))
		root := filepath.Join(b.TempDir(), "ws")
		_ = os.MkdirAll(root, 0o755)
		st := agentlsRun(b, bin, root, m.url, true)
		m.stop()
		b.ReportMetric(float64(st.fsyncs), "fsync/run")
	}
}

// manyTurnScript alternates read_file and edit_file over 20 small files for
// turns model turns, then ends with text.
func manyTurnScript(turns int) (script []byte, files map[string]string) {
	files = map[string]string{}
	version := make([]int, 20)
	for i := range 20 {
		files[fmt.Sprintf("src/file%02d.txt", i)] = fmt.Sprintf("file %d\nvalue 0\nsome more text on a line\n", i)
	}
	type call struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type turn struct {
		Text      string `json:"text,omitempty"`
		ToolCalls []call `json:"toolCalls,omitempty"`
	}
	var ts []turn
	for t := range turns {
		f := (t / 2) % 20
		path := fmt.Sprintf("src/file%02d.txt", f)
		var args []byte
		name := "read_file"
		if t%2 == 0 {
			args, _ = json.Marshal(map[string]string{"path": path})
		} else {
			name = "edit_file"
			args, _ = json.Marshal(map[string]string{"path": path,
				"old_string": fmt.Sprintf("value %d\n", version[f]), "new_string": fmt.Sprintf("value %d\n", version[f]+1)})
			version[f]++
		}
		ts = append(ts, turn{ToolCalls: []call{{ID: fmt.Sprintf("call_%d", t), Name: name, Arguments: string(args)}}})
	}
	ts = append(ts, turn{Text: "All files updated."})
	script, _ = json.Marshal(map[string]any{"turns": ts})
	return script, files
}

// BenchmarkE2E100Turns: a 100-turn task (alternating read_file and
// edit_file over 20 small files) against a zero-latency keep-alive model:
// the child's CPU time (user+sys) per turn, its peak RSS, fsyncs per turn
// (when strace is installed) and the model connections it opened.
//
// It runs twice: with the workspace and the state in the temporary
// directory (tmp), and on tmpfs (shm, when /dev/shm is writable). Every
// edit_file replaces its file with a new one, and on a disk the file
// system's cost of creating files differs from machine to machine (on this
// project's test machine, a journal-less ext4 in /tmp, it is most of a
// turn); tmpfs shows agentls's own cost.
func BenchmarkE2E100Turns(b *testing.B) {
	b.Run("tmp", func(b *testing.B) { bench100Turns(b, "") })
	b.Run("shm", func(b *testing.B) {
		dir, err := os.MkdirTemp("/dev/shm", "agentls-bench-")
		if err != nil {
			b.Skipf("no tmpfs at /dev/shm: %v", err)
		}
		b.Cleanup(func() { _ = os.RemoveAll(dir) })
		bench100Turns(b, dir)
	})
}

// bench100Turns runs the task with its workspace below dir ("" for
// b.TempDir()).
func bench100Turns(b *testing.B, dir string) {
	bin, fake := benchBinaries(b)
	const turns = 100
	script, files := manyTurnScript(turns)
	var cpu time.Duration
	var rss int64
	conns := 0
	for range b.N {
		m := startFakeModel(b, fake, script)
		root := benchWorkspace(b, dir, files)
		st := agentlsRun(b, bin, root, m.url, false)
		m.stop()
		cpu += st.cpu
		rss = max(rss, st.maxRSS)
		conns = max(conns, m.connections())
		checkEdited(b, root)
	}
	b.ReportMetric(ms(cpu)/float64(b.N*turns), "ms/turn-cpu")
	b.ReportMetric(float64(rss)/1024, "MB-rss")
	b.ReportMetric(float64(conns), "conns")
	if haveStrace() {
		m := startFakeModel(b, fake, script)
		st := agentlsRun(b, bin, benchWorkspace(b, dir, files), m.url, true)
		m.stop()
		b.ReportMetric(float64(st.fsyncs)/turns, "fsync/turn")
	}
}

func benchWorkspace(b *testing.B, dir string, files map[string]string) string {
	if dir == "" {
		dir = b.TempDir()
	} else {
		var err error
		if dir, err = os.MkdirTemp(dir, "run-"); err != nil {
			b.Fatal(err)
		}
	}
	root := filepath.Join(dir, "ws")
	for rel, body := range files {
		p := filepath.Join(root, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// checkEdited fails the benchmark when the task did not do its edits: a
// fast run that did nothing measures nothing.
func checkEdited(b *testing.B, root string) {
	data, err := os.ReadFile(filepath.Join(root, "src/file00.txt"))
	if err != nil || !strings.Contains(string(data), "value 3\n") {
		b.Fatalf("edits not applied: %q %v", data, err)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
