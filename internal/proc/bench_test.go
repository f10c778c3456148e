package proc_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// BenchmarkSandboxOverhead runs `true` plain and sandboxed (with and
// without a network namespace); the difference is what the sandbox adds
// to each command. Budget: 15 ms. cpu-ms/op is the CPU time (user and
// system) of agentls and the command's tree, which a busy machine
// inflates less than the wall time.
func BenchmarkSandboxOverhead(b *testing.B) {
	ws := b.TempDir()
	cases := []struct {
		name string
		sb   proc.Sandbox
	}{
		{"plain", proc.Sandbox{Mode: proc.ModeOff}},
		{"sandboxed", proc.Sandbox{}},
		{"sandboxed-network", proc.Sandbox{Network: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.sb.Mode != proc.ModeOff {
				if ok, why := proc.Available(); !ok {
					b.Skip(why)
				}
			}
			c0 := cpuTime()
			for b.Loop() {
				r, err := proc.Run(context.Background(), proc.Spec{Argv: []string{"true"}, Dir: ws, Sandbox: c.sb})
				if err != nil || r.ExitCode != 0 {
					b.Fatalf("%+v %v", r, err)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkCachedGoTest runs a cached `go test` of a small module plain
// and sandboxed (the Go caches seen through the sandbox's copy-on-write
// layer). Budget: sandboxed within 1.3× of plain.
func BenchmarkCachedGoTest(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("no go command")
	}
	ws := b.TempDir()
	for name, body := range map[string]string{
		"go.mod":       "module example.com/tiny\n\ngo 1.22\n",
		"tiny.go":      "package tiny\n\nfunc Add(a, b int) int { return a + b }\n",
		"tiny_test.go": "package tiny\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	layer := b.TempDir()
	settleWarm(b)
	for _, c := range []struct {
		name string
		sb   proc.Sandbox
	}{
		{"plain", proc.Sandbox{Mode: proc.ModeOff}},
		{"sandboxed", proc.Sandbox{CacheLayer: layer}},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.sb.Mode != proc.ModeOff {
				if ok, why := proc.Available(); !ok {
					b.Skip(why)
				}
			}
			run := func() {
				r, err := proc.Run(context.Background(), proc.Spec{Shell: "go test ./...", Env: env, Dir: ws, Sandbox: c.sb})
				if err != nil || r.ExitCode != 0 {
					b.Fatalf("%+v %v", r, err)
				}
			}
			run() // warm
			for b.Loop() {
				run()
			}
		})
	}
}

// cpuTime is the CPU time of this process and its reaped children.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
}

// BenchmarkSandboxSetup is the issue-30 budget, a micro-benchmark: `true`
// run sandboxed as agentls configures it (the policy's protected names,
// secret files and masked paths), on this repository as the workspace, as
// each front end runs run_command: in a view of the workspace holding no
// buffer (headless: agentls run's proposed files, none here) and holding
// 10 open buffers (LSP; ACP's unsaved files alike), and on the disk with
// no view (the evaluation's graders, a hook where the workspace has no
// view: placeholders for the missing protected names at the top, made
// and removed on the disk); setup-p50-ms and
// setup-p90-ms are the wall time of one command minus the median of the
// same command run unconfined. Budget: p90 ≤ 10 ms.
//
// Three pacings: "paced", commands 100 ms apart (a model's turn between
// two commands takes longer still), each in the warm launcher agentls
// started after the one before (warm_linux.go), which is what a user
// waits for; "back-to-back", the next command at once, its warm launcher
// still starting; "cold", no warm launcher.
func BenchmarkSandboxSetup(b *testing.B) {
	if ok, why := proc.Available(); !ok {
		b.Skip(why)
	}
	ws, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	view := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(ws, "internal", "proc", "*.go"))
	for _, f := range files {
		if len(view) == 10 {
			break
		}
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		rel, _ := filepath.Rel(ws, f)
		view[filepath.ToSlash(rel)] = text
	}
	time1 := func(sb proc.Sandbox) time.Duration {
		start := time.Now()
		r, err := proc.Run(context.Background(), proc.Spec{Argv: []string{"true"}, Dir: ws, Sandbox: sb})
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("%+v %v", r, err)
		}
		return time.Since(start)
	}
	var plain []time.Duration
	for range 20 {
		plain = append(plain, time1(proc.Sandbox{Mode: proc.ModeOff}))
	}
	base := percentile(plain, 50)
	for _, c := range []struct {
		name string
		view map[string][]byte
	}{{"headless", map[string][]byte{}}, {"lsp-view-10-buffers", view}, {"disk", nil}} {
		for _, pacing := range []string{"paced", "back-to-back", "cold"} {
			b.Run(c.name+"/"+pacing, func(b *testing.B) {
				sb := setupSandbox()
				sb.View = c.view
				if pacing == "cold" {
					proc.Shutdown()
					defer proc.EnableWarm()
				}
				time1(sb) // the first of its kind starts cold
				var ds []time.Duration
				var cpu time.Duration
				for b.Loop() {
					if pacing == "paced" {
						b.StopTimer()
						time.Sleep(100 * time.Millisecond)
						b.StartTimer()
					}
					c0 := cpuTime()
					ds = append(ds, time1(sb)-base)
					cpu += cpuTime() - c0
				}
				b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(percentile(ds, 50))/1e6, "setup-p50-ms")
				b.ReportMetric(float64(percentile(ds, 90))/1e6, "setup-p90-ms")
			})
		}
	}
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}
