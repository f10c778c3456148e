package proc

const minABI = minLandlockABI

// LandlockABI is the running kernel's Landlock ABI version.
func LandlockABI() (int, error) { return landlockABI() }

// PidsCgroup is the cgroup under which sandboxed commands get a pids.max
// of their own, or "" when there is none agentls may use (RLIMIT_NPROC
// bounds them then).
func PidsCgroup() string { return pidsBase() }
