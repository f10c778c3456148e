//go:build race

package e2e

// raceBuild makes TestMain build the server with the race detector too,
// so `go test -race ./e2e` checks the server's own goroutines.
const raceBuild = true
