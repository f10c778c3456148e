// Package policy decides what the model may do without asking the user:
// which shell commands run (Rules.Check, on a real shell parser), which
// workspace settings need the user's trust before they apply (WideningKeys,
// TrustStore), and which workspace files configure agentls or the editor
// (Protected) or hold secrets (DefaultSecretFiles).
//
// The command policy is a first line, not the boundary: a script file, a
// Makefile or a test binary the model wrote runs whatever it contains, and
// no command-line policy can see inside it. The sandbox confines what such
// programs can do. What the policy promises is narrower and testable: a
// command line never runs a program named by a tools.deny rule without a
// question, and a tools.allow rule never admits more than it names.
//
// It imports no other agentls package (it is wired in by the callers), and
// it does no I/O except TrustStore's file.
package policy
