package verify

import "fmt"

// Severity follows the numbering of LSP's DiagnosticSeverity so that callers
// can convert with a plain cast.
type Severity int

const (
	Error   Severity = 1
	Warning Severity = 2
	Info    Severity = 3
	Hint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Diagnostic is one located finding of a check.
type Diagnostic struct {
	// Path is absolute and inside the real workspace root, even when the
	// check ran in a CheckDir copy.
	Path string
	// Line and Col are 1-based; Col is a byte column, 0 when unknown.
	// EndLine and EndCol are 0 when the tool gave no range.
	Line, Col, EndLine, EndCol int
	Severity                   Severity
	Message                    string
	// Code is the tool's own identifier of the finding (E0308, TS2322,
	// no-unused-vars, -Wunused), if any.
	Code string
	// Source names the tool, such as "go vet" or "tsc".
	Source string
	// PreExisting: the same finding was there before the task (the verify
	// gate's baseline); it is shown, labelled, and is not the task's.
	PreExisting bool
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Line, d.Col, d.Severity, d.Message)
}
