// Package proc starts every process the model causes to run: shell
// commands (run_command), verify checks and MCP stdio servers. It owns the
// policy for all of them in one place:
//
//   - each process starts in its own session and process group, and on
//     timeout or cancellation the whole tree dies: the group, any
//     descendant that left it (found through /proc), and, when sandboxed,
//     the PID namespace (its first process is the command itself, so
//     killing it kills everything inside);
//   - combined output is capped by one head+tail Capper, with a marker
//     saying how many bytes were cut from the middle;
//   - the child's environment never holds an API key or another secret
//     (see IsSecretEnv);
//   - on Linux, a Sandbox confines the process (see Sandbox and Init).
//
// # The sandbox
//
// The running binary re-executes itself (/proc/self/exe) as a launcher,
// cloned into new user, PID and mount namespaces (and a network namespace
// with only a loopback interface unless Sandbox.Network). The launcher
// makes its mounts private, mounts a fresh /proc (so no process outside
// the sandbox, agentls or the editor, is visible, nor its environ), binds
// every existing protected path read-only over itself, drops all
// capabilities from its bounding set, applies Landlock (read and execute
// everywhere; write only to the workspace, the system temp directory, the
// ecosystem caches, Sandbox.WritableRoots and a few devices; no mount
// changes) and then executes the command, which becomes the namespace's
// first process. The launcher is recognised in this package's init (so
// that the binary's other packages need not initialize first); Init, called
// first thing in main and in TestMain, makes the dependency explicit.
// Available's probe fails if a binary never reaches either.
//
// The set-up is a plan of raw system calls computed beforehand
// (setup_linux.go), so that the same list can run in a child forked from
// the zygote, where nothing else is safe between fork and exec.
//
// # The view
//
// With Sandbox.View set, the launcher first mounts an overlayfs on the
// workspace's own path: the real workspace below, and above it a tmpfs of
// the mount namespace's own holding View's texts. The command sees the
// texts at real paths (what it prints needs no mapping), and every write
// it makes in the workspace lands in the tmpfs, which dies with it.
// Sandbox.ViewThrough directories are bound from the disk over the view,
// so build products (target/, node_modules/) stay incremental. Unprivileged
// overlayfs needs Linux 5.11.
//
// # Limits
//
//   - Only paths that exist can be bound read-only: a protected file that
//     does not exist yet (.agentls.json, .nvim.lua, …) can be created by a
//     sandboxed command. What covers that is the workspace-trust approval:
//     a new or changed .agentls.json widens nothing until the user
//     approves its content. Only the protected paths at the top of the
//     workspace are bound; nested repositories' .git are not.
//   - Landlock ABI 3 (Linux 6.2) is the minimum: older kernels cannot deny
//     truncate(2), so Available reports false there and callers ask the
//     user instead. Other systems have no sandbox (Available is false).
//   - Unix sockets reachable by path (an ssh-agent, a Docker socket) are
//     not blocked on kernels before Landlock ABI 9; abstract sockets and
//     signals outside the sandbox are (ABI 6).
//   - A cache directory that does not exist when a command starts is not
//     writable for it.
//   - Cost: Run goes through a zygote (zygote_linux.go), started once per
//     process on the first sandboxed Run and killed with it, which forks
//     each command into fresh namespaces: no Go binary starts per command.
//     What that costs per command is BenchmarkSandboxOverhead's to say
//     (README, Measured); the re-executed launcher cost several times
//     more. Command (an *exec.Cmd the caller starts:
//     MCP servers) still uses the launcher, as does Run when the zygote
//     cannot start. The zygote's mount namespace is a copy taken when it
//     starts: file systems mounted later on the host are not seen.
//   - Network detection (Result.NetworkBlocked) is a heuristic over the
//     output's error messages.
//
// This package must never import another agentls package: it sits below
// all of them, and its launcher runs before main, so it must stay small.
package proc
