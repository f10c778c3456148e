// Package eval measures how well a model gets real tasks done through
// agentls: `agentls-eval` (make eval) copies each task's small repository (Go, Python
// or TypeScript, under testdata/eval), runs `agentls run` on it against
// the configured endpoint, then adds the task's hidden tests and runs them
// in the sandbox; they decide pass or fail. Between agentls and the
// endpoint sits a recording proxy that counts every request's tokens
// (cached and not) and how much of its input is a byte-identical prefix of
// the previous request's, which is what providers' prompt caches reuse.
//
// With Scripted, the endpoint is the scripted model (internal/testkit/
// fakellm) playing each task's recorded solution, so the harness itself is
// tested in CI.
package eval
