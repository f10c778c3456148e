//go:build !linux

package proc_test

// helperWalk is the boundary walk's helper (walk_linux_test.go).
func helperWalk(string) {}

// helperWarm is the warm launcher's helper (warm_linux_test.go).
func helperWarm(string) {}
