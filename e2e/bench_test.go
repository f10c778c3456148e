package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartup measures, per op, a fresh agentls process from exec to
// the initialize reply (the time an editor waits), and reports its resident
// memory once initialized and idle.
func BenchmarkStartup(b *testing.B) {
	root := b.TempDir()
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://%s","capabilities":{"window":{"workDoneProgress":true}}}}`
	body := fmt.Sprintf(init, root)
	msg := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	initialized := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	var rssKB int
	var total time.Duration
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(binary)
		cmd.Dir = root
		cmd.Env = []string{"HOME=" + root, "XDG_STATE_HOME=" + root}
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		began := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := io.WriteString(in, msg); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReader(out)
		if _, err := readFrame(r); err != nil {
			b.Fatal(err)
		}
		total += time.Since(began)
		_, _ = io.WriteString(in, fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(initialized), initialized))
		if i == 0 {
			time.Sleep(300 * time.Millisecond)
			rssKB = vmRSS(cmd.Process.Pid)
		}
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-initialize")
	// The floor under that number on this machine: exec to exit of the same
	// binary doing nothing.
	began := time.Now()
	for i := 0; i < 10; i++ {
		if err := exec.Command(binary, "version").Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(began).Microseconds())/10000, "ms-exec-floor")
	b.ReportMetric(float64(rssKB)/1024, "idle-RSS-MB")
}

func readFrame(r *bufio.Reader) (string, error) {
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	buf := make([]byte, n)
	_, err := io.ReadFull(r, buf)
	return string(buf), err
}

func vmRSS(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// BenchmarkLauncherStart is the part of a cold sandboxed command's set-up
// that BenchmarkSandboxSetup (internal/proc, run from its small test
// binary) does not show as agentls pays it: the launcher is agentls
// itself, re-executed, and starts the Go runtime and every package
// initialized before internal/proc's. A command after the first of its
// kind pays none of it: its launcher started ahead, while the model was
// answering (internal/proc/warm_linux.go). Per op: exec of the real binary as
// the launcher with an empty configuration, which it refuses at once; 20
// of them per op (make bench runs the e2e benchmarks once).
// cpu-ms/launch is the children's CPU time (user and system).
func BenchmarkLauncherStart(b *testing.B) {
	const per = 20
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
	for b.Loop() {
		for range per {
			out, err := exec.Command(binary, "__agentls_sandbox_launcher__", "{}").CombinedOutput()
			if err == nil || !strings.Contains(string(out), "bad launcher argument") {
				b.Fatalf("not the launcher: %v %s", err, out)
			}
		}
	}
	var after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
	cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N*per)/1e6, "cpu-ms/launch")
}
