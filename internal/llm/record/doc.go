// Package record records every model exchange as JSON lines (key redacted)
// and replays a recording as an agent.LLM, saying where a run diverges.
package record
