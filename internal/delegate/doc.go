// Package delegate hands tasks to other machines and brings their results
// back: a job (a repository at a pushed commit and a task) goes through a
// NATS JetStream work queue to `agentls worker`s, each of which runs it as
// one `agentls run` in a fresh clone, stores the result (a complete patch,
// the transcript, the events, the session) in the JetStream object store
// and publishes its state. The queue, the redelivery, the leases and the
// de-duplication are JetStream's: this package only names the streams and
// the consumer, and keeps a job's message in progress while it runs.
//
// It sits beside internal/assemble, below the front ends (cli, lsp, acp)
// that submit, list and fetch jobs; it imports no front end. Git runs
// through internal/proc.
package delegate
