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
// with only a loopback interface unless Sandbox.Network). This is the one
// way a sandboxed process starts, for Run and Command alike. The launcher
// joins the command's cgroups (pids.max, and the memory cap where agentls
// may make a memory cgroup; RLIMIT_NPROC and RLIMIT_DATA otherwise), makes
// its mounts private, and then:
//
//   - shows each cache the declaration names copy-on-write through an
//     overlayfs (userxattr) whose upper directory is agentls's own, per
//     workspace and slot (Sandbox.CacheLayer): the command can write its
//     caches, the user's are never written. The layers are keyed by the
//     workspace's path and identity, and listed and pruned by CacheLayers
//     and PruneCacheLayers;
//   - walks the workspace (breadth first; see Limits) and binds every
//     entry named in Sandbox.Protect read-only over itself, at any depth,
//     and, when the entry is a symlink, what it resolves to beneath the
//     workspace; mounts an empty read-only file or directory over every
//     entry matching Sandbox.SecretFiles, but .git/config, shown with its
//     credentials stripped (StripGitCredentials); a protected name missing
//     at the top of the workspace gets an empty placeholder on disk for the
//     command's life (made by the parent, bound read-only like the rest,
//     removed when the command ends if still empty), so it cannot be
//     created;
//   - builds a new root from the declaration (Declare): a tmpfs of its own
//     holding a recursive clone (open_tree) of each declared path, with
//     the mounts above, read-only where declared so; the system's symlinks
//     (/bin -> usr/bin); empty private /tmp, /dev/shm and $HOME; /proc of
//     its PID namespace; a /dev of null, zero, full, random, urandom, tty
//     and its own devpts. It pivots into it and detaches the old root:
//     nothing undeclared exists for the command, by any path, sockets of
//     the user's session included;
//   - masks every path of Sandbox.DenyRead (the user's credentials) that a
//     declared path holds;
//   - drops all capabilities from its bounding set, applies Landlock (read
//     and execute everywhere; write only to the workspace, its /tmp,
//     /dev/shm and $HOME, the caches' layers, Sandbox.WritableRoots and a
//     few devices; no mount changes), marks every descriptor above stderr
//     close-on-exec, and executes the command, which becomes the
//     namespace's first process.
//
// The command's environment has no socket variable (IsSocketEnv:
// SSH_AUTH_SOCK, DOCKER_HOST, DBUS_*, XDG_RUNTIME_DIR, …) and TMPDIR=/tmp.
//
// Every mount that depends on what the workspace holds is made on
// descriptors (open_tree and move_mount on openat2 RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS descriptors), never on a path a sibling process can
// swap for a symlink between the check and the mount. The launcher is
// recognised in this package's init (so that the binary's other packages
// need not initialize first); Init, called first thing in main and in
// TestMain, makes the dependency explicit. Available's probe fails if a
// binary never reaches either.
//
// # The view
//
// With Sandbox.View set, the launcher first mounts an overlayfs (with
// userxattr, so whiteouts work in a user namespace) on the workspace's own
// path: the real workspace below, and above it a tmpfs of the mount
// namespace's own holding View's texts. The command sees the texts at
// real paths (what it prints needs no mapping), and every write it makes
// in the workspace lands in the tmpfs, which dies with it. With
// Sandbox.ViewLayer, the upper layer is a directory of the caller's own
// instead, and the command's writes stay there, its private layer, for the
// write path to carry in. Renaming
// a directory of the disk in the view or a cache layer fails with EXDEV
// (overlayfs's redirect_dir is not for user namespaces); mv, git, go, npm
// and cargo copy instead.
// Sandbox.ViewThrough directories are bound from the disk over the view,
// so build products (target/, node_modules/) stay incremental. Unprivileged
// overlayfs needs Linux 5.11.
//
// # Limits
//
//   - The walk for protected and secret names skips node_modules, .venv,
//     venv, .tox, __pycache__, target, .next, .gradle and .terraform, looks
//     only one level into a protected directory, and stops after 50,000
//     entries. Each file it masks is a mount, made at set-up and undone
//     at exit: a workspace with thousands of *.pem costs milliseconds per
//     command. A protected name created
//     below the top of the workspace while the command runs (a new
//     sub/.vscode) is not protected; at the top, only exact names get a
//     placeholder (not *.code-workspace, nor .git: an empty .git breaks
//     go build's version stamping in a workspace that is no repository).
//   - Landlock ABI 3 (Linux 6.2) is the minimum: older kernels cannot deny
//     truncate(2), so Available reports false there and callers ask the
//     user instead. Other systems have no sandbox (Available is false).
//   - Abstract Unix sockets and signals outside the sandbox are blocked
//     from Landlock ABI 6; sockets by path do not exist (the root is
//     declared).
//   - A cache directory that does not exist when a command starts is
//     created in its private $HOME, and dies with it. A workspace has 8
//     cache-layer slots; a ninth command running at once sees the caches
//     read-only.
//   - The languages are found by their markers at the top of the
//     workspace or one level down; a toolchain reached otherwise (a
//     script naming ~/sdk/go/bin/go) is not declared unless on PATH or in
//     sandbox.allowRead. A protected symlink whose target does not exist
//     yet does not protect the target's path.
//   - The process limit is a cgroup's pids.max where agentls may create a
//     cgroup (cgroup v1's pids hierarchy, or a v2 cgroup whose children
//     have the pids controller); elsewhere RLIMIT_NPROC, which the kernel
//     does not apply to root.
//   - Cost: each command starts the agentls binary once more as the
//     launcher (BenchmarkSandboxOverhead; docs/performance.md).
//   - Network detection (Result.NetworkBlocked) is a heuristic over the
//     output's error messages.
//
// This package must never import another agentls package: it sits below
// all of them, and its launcher runs before main, so it must stay small.
package proc
