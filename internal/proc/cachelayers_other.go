//go:build !unix

package proc

import "time"

// No sandbox, so no cache layers, where there is no Unix (Windows): the
// names `agentls sandbox` shows exist so the server builds there, and
// report none.

// CacheLayersDir is empty: there are no cache layers.
func CacheLayersDir() string { return "" }

// CacheLayers lists none.
func CacheLayers(string) ([]CacheLayer, error) { return nil, nil }

// PruneCacheLayers removes none.
func PruneCacheLayers(string, time.Duration, int64, bool) ([]CacheLayer, error) { return nil, nil }
