package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles is a diagnostics aid: AGENTLS_CPUPROFILE=file writes a CPU
// profile of the whole process, AGENTLS_MEMPROFILE=file a heap profile taken
// at exit (go tool pprof reads both). Unset, it costs two getenv calls. The
// returned function writes and closes what was started; main calls it before
// os.Exit, which skips deferred calls.
func startProfiles() (stop func()) {
	cpuPath, memPath := os.Getenv("AGENTLS_CPUPROFILE"), os.Getenv("AGENTLS_MEMPROFILE")
	if cpuPath == "" && memPath == "" {
		return func() {}
	}
	if memPath != "" {
		runtime.MemProfileRate = 4 << 10 // the default (512 kB) sees a handful of a short run's allocations
	}
	var cpu *os.File
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "agentls: AGENTLS_CPUPROFILE:", err)
		} else {
			cpu = f
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			_ = cpu.Close()
		}
		if memPath != "" {
			f, err := os.Create(memPath)
			if err == nil {
				runtime.GC() // the heap profile shows live data as of the last GC
				err = pprof.WriteHeapProfile(f)
				_ = f.Close()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "agentls: AGENTLS_MEMPROFILE:", err)
			}
		}
	}
}
