// Package eval measures how well a model gets real tasks done through
// agentls. `agentls-eval` (make eval) takes each task's repository (a
// project of the suite with the task's bug, or a git repository at a
// commit), copies it to a fresh directory, runs `agentls run` there
// against the configured endpoint with the suite sealed away from the
// model's sandbox (sandbox.denyRead), then grades: a fresh copy of the
// repository as given plus the model's change to anything but tests and
// build or test configuration, the hidden tests added, run isolated in the
// sandbox and judged test by test from the runner's own report (go test
// -json, unittest's results, node's TAP, libtest's lines), against the
// task's FAIL_TO_PASS and PASS_TO_PASS tests. Between agentls and the
// endpoint sits a recording proxy that counts every request's tokens
// (cached and not) and how much of its input is a byte-identical prefix
// of the previous request's, which is what providers' prompt caches reuse.
//
// With Scripted, the endpoint is the scripted model (internal/testkit/
// fakellm) playing each task's fix, so the harness itself is tested in CI.
package eval
