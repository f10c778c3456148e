package main

import (
	"os"
	"runtime/debug"
)

// runGCPercent is the GC target of `agentls run` when GOGC is not set. A
// headless task keeps little live heap (under 1 MB after 100 turns) but
// allocates a request body and stream chunks every turn, so its peak heap
// is the runtime's 4 MB floor scaled by GOGC. On the 100-turn benchmark
// task, six interleaved runs each (perf stat task-clock, one P): 75 took a
// median of 109 ms with peak RSS 16.1-16.6 MiB, 50 took 107 ms with
// 15.4-15.6 MiB. A collection of this heap costs about 0.5 ms, and 50
// collects about ten more times in 100 turns, which is lost in the noise.
// (An earlier measurement, on two Ps and a busier machine, put 50 at 0.3 ms
// more per turn; these interleaved runs do not show it.) The language
// server, whose heap holds open documents, keeps the default.
const runGCPercent = 50

// tuneRun sets `agentls run` up before it starts any goroutine. The
// environment's GOGC wins. GOMAXPROCS is left to the runtime: pinning it to
// one saved CPU only against a zero-latency model, and cost a user's grep
// and list_files walks of a big tree all but one core.
func tuneRun() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(runGCPercent)
	}
}
