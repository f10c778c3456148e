package assemble

import (
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// What `agentls sandbox` shows of the sandbox (front ends do not import
// proc).

// SandboxDeclaration is the declaration a sandboxed command runs in.
type SandboxDeclaration = proc.Declaration

// CacheLayer is one workspace's copy-on-write cache layers.
type CacheLayer = proc.CacheLayer

// Cache layers' defaults: pruned when unused for CacheMaxAge, and the
// least recently used beyond CacheMaxBytes altogether.
const (
	CacheMaxAge   = proc.DefaultCacheMaxAge
	CacheMaxBytes = proc.DefaultCacheMaxBytes
)

// SandboxAvailable reports whether this machine can sandbox, and if not why.
func SandboxAvailable() (bool, string) { return proc.Available() }

// SandboxOff says whether a declaration is of no sandbox at all.
func SandboxOff(d SandboxDeclaration) bool { return d.Mode == proc.ModeOff }

// CacheLayersDir is where every workspace's cache layers live.
func CacheLayersDir() string { return proc.CacheLayersDir() }

// CacheLayers lists the cache layers, the most recently used first.
func CacheLayers() ([]CacheLayer, error) { return proc.CacheLayers("") }

// PruneCacheLayers removes the orphaned, expired and least recently used
// beyond the cap (all: every one not in use), and returns them.
func PruneCacheLayers(maxAge time.Duration, maxBytes int64, all bool) ([]CacheLayer, error) {
	return proc.PruneCacheLayers("", maxAge, maxBytes, all)
}
