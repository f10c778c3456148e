// Package llm is what agentls knows of models apart from a backend's
// protocol: the endpoint's model list, the built-in table of prices and
// image support, and the one wrapper every request to a model (or an
// external agent) passes, which scrubs the secret values (policy.Scrubber)
// from it. The protocols themselves are its subpackages: chat, responses,
// llmhttp, record.
//
// It must never import a front end, assemble, or the driver.
package llm
