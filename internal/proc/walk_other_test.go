//go:build !linux

package proc_test

// helperWalk is the boundary walk's helper (walk_linux_test.go).
func helperWalk(string) {}
