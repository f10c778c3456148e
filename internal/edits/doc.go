// Package edits is the text machinery between the agent and the editor:
// LSP position mapping in any of the three position encodings, minimal diffs
// turned into TextEdits, applying TextEdits, unified diffs for the CLI, and
// the three-way revert that undoes an agent task without losing what the
// user typed since.
//
// Everything here is a pure function of strings: no I/O, no clocks that
// change results (only go-diff's time limits, which can coarsen a diff but
// never make it wrong), no goroutines. The package depends on protocol types
// only; it must never import the lsp, agent or verify packages.
//
// Offsets are byte offsets into Go strings. Lines end at '\n'; a '\r' right
// before it is part of the line terminator, so CRLF files keep their endings
// and no position ever falls between the '\r' and the '\n'. A lone '\r' is
// ordinary text (the LSP specification also counts it as a line break; no
// editor we target writes such files, and treating it as text keeps the
// mapping identical to the line splitting of the diff).
package edits
