// Package chat is the model backend for OpenAI-compatible chat completions
// (go-openai): streaming, tool-call assembly, error classification and
// Retry-After. It implements agent.LLM and imports no front end.
package chat
