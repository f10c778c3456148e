package proc

import "time"

// The cache layers' limits and listing, the same on every system (the
// layers themselves exist only on Unix: cachelayers_unix.go).
const (
	DefaultCacheMaxAge   = 14 * 24 * time.Hour
	DefaultCacheMaxBytes = 2 << 30
)

// CacheLayer is one workspace's cache layers.
type CacheLayer struct {
	Dir       string    `json:"dir"`
	Workspace string    `json:"workspace"`
	Bytes     int64     `json:"bytes"`
	LastUsed  time.Time `json:"lastUsed"`
	// Orphaned: the workspace is gone or is another directory now (or
	// the layers predate owners): nothing will use them again.
	Orphaned bool `json:"orphaned"`
	InUse    bool `json:"inUse"`
}
