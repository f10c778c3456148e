package hooks

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/proc"
)

// A hook's stderr longer than maxOutput is cut on a character boundary:
// it goes to the model as the reason of a block, and half a character
// there is not text.
func TestHookStderrCutOnACharacter(t *testing.T) {
	r := &Runner{Root: t.TempDir(), Sandbox: proc.Sandbox{Mode: proc.ModeOff}}
	// One byte, then two-byte characters: maxOutput (even) falls inside one.
	o := r.one(context.Background(), "test", Handler{Command: `printf a >&2; i=0; while [ $i -lt 6000 ]; do printf 'é' >&2; i=$((i+1)); done; exit 2`}, []byte("{}"))
	if o.exit != blocked {
		t.Fatalf("exit %d, stderr %.100q", o.exit, o.stderr)
	}
	if len(o.stderr) > maxOutput || len(o.stderr) < maxOutput-1 {
		t.Fatalf("stderr is %d bytes, want about %d", len(o.stderr), maxOutput)
	}
	if !utf8.ValidString(o.stderr) {
		t.Fatalf("stderr cut inside a character: ends %q", o.stderr[len(o.stderr)-3:])
	}
}
