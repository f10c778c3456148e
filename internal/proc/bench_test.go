package proc_test

import (
	"context"
	"testing"

	"github.com/agentls/agentls/internal/proc"
)

// BenchmarkSandboxOverhead runs `true` plain and sandboxed (with and
// without a network namespace); the difference is what the sandbox adds
// to each command. Budget: 5 ms.
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
			for b.Loop() {
				r, err := proc.Run(context.Background(), proc.Spec{Argv: []string{"true"}, Dir: ws, Sandbox: c.sb})
				if err != nil || r.ExitCode != 0 {
					b.Fatalf("%+v %v", r, err)
				}
			}
		})
	}
}
