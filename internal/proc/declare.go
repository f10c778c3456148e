package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Access is what a sandboxed command may do with a declared path.
type Access string

const (
	// ReadOnly: the path as it is on disk, read-only.
	ReadOnly Access = "read-only"
	// ReadWrite: the path as it is on disk, writable (the workspace and
	// sandbox.writableRoots).
	ReadWrite Access = "read-write"
	// CopyOnWrite: the path as it is on disk, and the command's writes
	// land in agentls's layer (a cache); the user's copy is never written.
	CopyOnWrite Access = "copy-on-write"
	// Private: an empty directory of the command's own, writable, gone
	// when the command ends (/tmp, /dev/shm, $HOME).
	Private Access = "private"
	// Symlink: a symbolic link to Entry.Target, as on disk (/bin -> usr/bin).
	Symlink Access = "symlink"
	// Own: a file system of the command's own (/proc of its PID
	// namespace, /dev's few devices and its own pseudo-terminals).
	Own Access = "own"
)

// Entry is one declared path.
type Entry struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	// Why names the rule that declared it ("system", "workspace", "go
	// toolchain", "sandbox.allowRead", …).
	Why string `json:"why"`
	// Target is a symlink's target.
	Target string `json:"target,omitempty"`
}

// Declaration is everything a sandboxed command's file system holds: the
// launcher builds a new root from it, and nothing else exists for the
// command. Within the declared paths, the workspace's secret files read as
// empty (but .git/config, shown with the credentials of its URLs
// stripped), the protected names and their symlinks' targets are
// read-only, and the DenyRead paths read as empty.
type Declaration struct {
	Workspace string `json:"workspace"`
	Mode      string `json:"mode"`
	// Languages are those found in the workspace (go, node, python,
	// rust): their toolchains and caches are declared.
	Languages []string `json:"languages"`
	Home      string   `json:"home,omitempty"`
	Entries   []Entry  `json:"entries"`
	// Protected and SecretFiles are name globs applied at any depth of
	// the workspace; DenyRead are paths that read as empty wherever a
	// declared path holds them.
	Protected   []string `json:"protected,omitempty"`
	SecretFiles []string `json:"secretFiles,omitempty"`
	DenyRead    []string `json:"denyRead,omitempty"`
	// DroppedEnv are the variables never passed (besides secrets): the
	// roads to the user's agents by socket.
	DroppedEnv []string `json:"droppedEnv"`
	Network    bool     `json:"network"`
	// MemoryMax is the cap on the command's memory in bytes (0: none).
	MemoryMax int64 `json:"memoryMaxBytes"`
	MaxProcs  int   `json:"maxProcs"`
	// CacheLayers is where the copy-on-write caches' layers live.
	CacheLayers string `json:"cacheLayers,omitempty"`
	// GitConfigs are git configurations outside the workspace (a linked
	// worktree's repository) shown with their credentials stripped.
	GitConfigs []string `json:"gitConfigs,omitempty"`
}

// systemDirs are declared read-only (a symlink among them, /bin -> usr/bin
// on a merged /usr, is declared as the symlink).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// skipDirs are not searched for protected or secret names: dependencies
// and build products, large and not the user's own files.
var skipDirs = map[string]bool{"node_modules": true, ".venv": true, "venv": true, ".tox": true, "__pycache__": true,
	"target": true, ".next": true, ".gradle": true, ".terraform": true}

func lookPath(name, pathEnv string) (string, error) {
	for _, dir := range strings.Split(pathEnv, ":") {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + name
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: executable file not found in $PATH", name)
}

// markers name the files at the top of a project (or one directory down)
// that say which language it is written in.
var markers = map[string]string{
	"go.mod": "go", "go.work": "go",
	"package.json":   "node",
	"Cargo.toml":     "rust",
	"pyproject.toml": "python", "setup.py": "python", "setup.cfg": "python", "requirements.txt": "python", "Pipfile": "python",
}

// languages are those whose markers stand at the top of ws or one
// directory below it. They are found anew for every command (about ten
// lstat calls; under a millisecond with no marker at the top and 64
// directories to look in): a marker the last command made (go mod init)
// must reach the next command's declaration.
func languages(ws string) []string {
	found := map[string]bool{}
	look := func(dir string) {
		for m, lang := range markers {
			if !found[lang] {
				if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
					found[lang] = true
				}
			}
		}
	}
	look(ws)
	if len(found) == 0 {
		ents, _ := os.ReadDir(ws)
		n := 0
		for _, e := range ents {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || skipDirs[e.Name()] {
				continue
			}
			if n++; n > 64 {
				break
			}
			look(filepath.Join(ws, e.Name()))
		}
	}
	var out []string
	for l := range found {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// Declare is the declaration for a command run in sb (whose Workspace is
// set) with the environment env (os.Environ() when nil; what the child
// gets, secrets aside).
func Declare(sb Sandbox, env []string) (Declaration, error) {
	if env == nil {
		env = os.Environ()
	}
	sb, err := sb.normalize(sb.Workspace)
	if err != nil {
		return Declaration{}, err
	}
	d := Declaration{Workspace: sb.Workspace, Mode: sb.Mode, Network: sb.Network, MaxProcs: sb.MaxProcs,
		Protected: sb.Protect, SecretFiles: sb.SecretFiles, DenyRead: sb.DenyRead, MemoryMax: sb.MemoryMax,
		CacheLayers: sb.CacheLayer, DroppedEnv: socketEnvNames(env)}
	if d.MemoryMax < 0 {
		d.MemoryMax = 0
	}
	if sb.Mode == ModeOff {
		return d, nil
	}
	home, homeLink := homeOf(env)
	d.Home = home
	dc := &declaring{es: systemEntries()}
	if sb.Network {
		// Name resolution: /etc/resolv.conf often links into /run.
		if r, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !strings.HasPrefix(r, "/etc/") {
			dc.add(r, ReadOnly, "name resolution (sandbox.network)")
		}
	}
	dc.es = append(dc.es, ownEntries(home, homeLink)...)
	dc.declared(sb, home)
	if common := gitCommonDir(sb.Workspace, dc.add); common != "" {
		d.GitConfigs = append(d.GitConfigs, filepath.Join(common, "config"))
	}
	d.GitConfigs = append(d.GitConfigs, dc.gitUser(env, home)...)
	d.Languages = languages(sb.Workspace)
	for _, c := range toolchains(d.Languages, env, home) {
		dc.add(c.Path, c.Access, c.Why)
	}
	dc.path(env, home)
	d.Entries = settle(dc.es)
	return d, nil
}

// homeOf is the home directory the command's environment names (else
// the user's), resolved, and the link that named it when it is one.
func homeOf(env []string) (home, homeLink string) {
	home = lookupEnv(env, "HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		if r, err := filepath.EvalSymlinks(home); err == nil && r != filepath.Clean(home) {
			homeLink, home = filepath.Clean(home), r
		}
	}
	return home, homeLink
}

// systemEntries are the system's directories, read-only (a link among
// them, such as /bin -> usr/bin, as the link).
func systemEntries() []Entry {
	var es []Entry
	for _, s := range systemDirs {
		fi, err := os.Lstat(s)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(s); err == nil {
				es = append(es, Entry{Path: s, Access: Symlink, Why: "system", Target: t})
			}
		case fi.IsDir():
			es = append(es, Entry{Path: s, Access: ReadOnly, Why: "system"})
		}
	}
	return es
}

// ownEntries are what the command gets of its own: /proc, /dev, /tmp,
// /dev/shm and an empty home.
func ownEntries(home, homeLink string) []Entry {
	es := []Entry{
		{Path: "/proc", Access: Own, Why: "the command's own processes"},
		{Path: "/dev", Access: Own, Why: "null, zero, full, random, urandom, tty and pseudo-terminals of its own"},
		{Path: "/tmp", Access: Private, Why: "temporary files (TMPDIR)"},
		{Path: "/dev/shm", Access: Private, Why: "shared memory"}}
	if home != "" && home != "/" {
		es = append(es, Entry{Path: home, Access: Private, Why: "home: empty but for what is declared in it"})
		if homeLink != "" {
			// $HOME names the home through a link (/home/u -> /data/u).
			es = append(es, Entry{Path: homeLink, Access: Symlink, Why: "home", Target: home})
		}
	}
	return es
}

// declaring collects a declaration's entries.
type declaring struct{ es []Entry }

// add declares p (absolute, resolved; nothing there: nothing declared).
func (dc *declaring) add(p string, a Access, why string) {
	if p == "" || !filepath.IsAbs(p) {
		return
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	} else {
		return // nothing there
	}
	if p == "/" {
		return
	}
	dc.es = append(dc.es, Entry{Path: p, Access: a, Why: why})
}

// declared adds the workspace and what the settings declare: writable
// roots, agentls's exchange directories, paths allowed to read.
func (dc *declaring) declared(sb Sandbox, home string) {
	ws := ReadWrite
	if sb.Mode == ModeReadOnly {
		ws = ReadOnly
	}
	dc.add(sb.Workspace, ws, "workspace")
	for _, p := range sb.WritableRoots {
		dc.add(expandHome(p, home), ws, "sandbox.writableRoots")
	}
	for _, p := range sb.Scratch {
		dc.add(p, ReadWrite, "agentls's exchange with the command")
	}
	for _, p := range sb.AllowRead {
		dc.add(expandHome(p, home), ReadOnly, "sandbox.allowRead")
	}
}

// gitUser adds git's user configuration (who commits, aliases, ignores),
// shown with its credentials stripped as .git/config is; not the files it
// includes, nor its credentials file. It returns the configurations.
func (dc *declaring) gitUser(env []string, home string) []string {
	if home == "" {
		return nil
	}
	var configs []string
	xdg := lookupEnv(env, "XDG_CONFIG_HOME")
	if !filepath.IsAbs(xdg) {
		xdg = filepath.Join(home, ".config")
	}
	for _, f := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			dc.add(f, ReadOnly, "git's user configuration, credentials stripped")
			configs = append(configs, f)
		}
	}
	if fi, err := os.Lstat(filepath.Join(xdg, "git", "ignore")); err == nil && fi.Mode().IsRegular() {
		dc.add(filepath.Join(xdg, "git", "ignore"), ReadOnly, "git's user ignores")
	}
	return configs
}

// path adds the programs on PATH: a directory outside the system's; a
// version manager's shims (pyenv, rbenv, asdf) run programs of its root.
func (dc *declaring) path(env []string, home string) {
	for _, p := range filepath.SplitList(lookupEnv(env, "PATH")) {
		if !filepath.IsAbs(p) || filepath.Clean(p) == home {
			continue
		}
		p = filepath.Clean(p)
		if filepath.Base(p) == "shims" && filepath.Dir(p) != home {
			dc.add(filepath.Dir(p), ReadOnly, "PATH (a version manager's shims)")
			continue
		}
		dc.add(p, ReadOnly, "PATH")
	}
}

// settle sorts the entries by path and drops those a read-only or
// read-write entry already holds with the same access (a PATH directory
// under /usr), and every later duplicate of a path.
func settle(es []Entry) []Entry {
	rank := map[Access]int{Private: 0, Own: 0, Symlink: 0, ReadOnly: 1, ReadWrite: 2, CopyOnWrite: 3}
	slices.SortStableFunc(es, func(a, b Entry) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return rank[a.Access] - rank[b.Access]
	})
	var out []Entry
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.Path+"\x00"+string(e.Access)] {
			continue
		}
		covered := false
		for _, o := range out {
			if o.Path != e.Path && within(e.Path, o.Path) && (o.Access == ReadOnly || o.Access == ReadWrite) && e.Access == ReadOnly {
				covered = true
				break
			}
			if o.Path != e.Path && within(e.Path, o.Path) && o.Access == Symlink {
				covered = true // under a link: its target is declared
				break
			}
		}
		if covered {
			continue
		}
		seen[e.Path+"\x00"+string(e.Access)] = true
		out = append(out, e)
	}
	return out
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/") || dir == "/"
}

// toolchains are the toolchains (read-only) and caches (copy-on-write)
// of the languages.
func toolchains(langs []string, env []string, home string) []Entry {
	var out []Entry
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		if home == "" {
			return ""
		}
		return filepath.Join(home, def)
	}
	cacheHome := or(lookupEnv(env, "XDG_CACHE_HOME"), ".cache")
	prefixOf := func(prog string) string {
		p, err := lookPath(prog, lookupEnv(env, "PATH"))
		if err != nil {
			return ""
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return filepath.Dir(filepath.Dir(p))
	}
	for _, l := range langs {
		switch l {
		case "go":
			root := lookupEnv(env, "GOROOT")
			if root == "" {
				root = prefixOf("go")
			}
			out = append(out, Entry{Path: root, Access: ReadOnly, Why: "go toolchain"})
			gomod := lookupEnv(env, "GOMODCACHE")
			if gomod == "" {
				if gp := filepath.SplitList(lookupEnv(env, "GOPATH")); len(gp) > 0 && gp[0] != "" {
					gomod = filepath.Join(gp[0], "pkg", "mod")
				} else {
					gomod = or("", filepath.Join("go", "pkg", "mod"))
				}
			}
			gocache := lookupEnv(env, "GOCACHE")
			if gocache == "" && cacheHome != "" {
				gocache = filepath.Join(cacheHome, "go-build")
			}
			out = append(out, Entry{Path: gomod, Access: CopyOnWrite, Why: "go module cache"},
				Entry{Path: gocache, Access: CopyOnWrite, Why: "go build cache"})
		case "node":
			if p := prefixOf("node"); p != "" && p != "/usr" {
				out = append(out, Entry{Path: p, Access: ReadOnly, Why: "node toolchain"})
			}
			npm := lookupEnv(env, "npm_config_cache")
			if npm == "" {
				npm = lookupEnv(env, "NPM_CONFIG_CACHE")
			}
			out = append(out, Entry{Path: or(npm, ".npm"), Access: CopyOnWrite, Why: "npm cache"})
			if cacheHome != "" {
				out = append(out, Entry{Path: filepath.Join(cacheHome, "yarn"), Access: CopyOnWrite, Why: "yarn cache"})
			}
		case "python":
			if cacheHome != "" {
				out = append(out, Entry{Path: filepath.Join(cacheHome, "pip"), Access: CopyOnWrite, Why: "pip cache"})
			}
			out = append(out, Entry{Path: or(lookupEnv(env, "PYENV_ROOT"), ".pyenv"), Access: ReadOnly, Why: "python toolchain (pyenv)"})
		case "rust":
			cargo := or(lookupEnv(env, "CARGO_HOME"), ".cargo")
			if cargo != "" {
				out = append(out, Entry{Path: filepath.Join(cargo, "bin"), Access: ReadOnly, Why: "rust toolchain"},
					Entry{Path: filepath.Join(cargo, "registry"), Access: CopyOnWrite, Why: "cargo registry"},
					Entry{Path: filepath.Join(cargo, "git"), Access: CopyOnWrite, Why: "cargo git checkouts"})
			}
			out = append(out, Entry{Path: or(lookupEnv(env, "RUSTUP_HOME"), ".rustup"), Access: ReadOnly, Why: "rust toolchain (rustup)"})
		}
	}
	return out
}

// gitCommonDir declares, read-only, the repository a linked worktree's
// .git file points to (its objects and refs), so git works in it.
func gitCommonDir(ws string, add func(string, Access, string)) string {
	fi, err := os.Lstat(filepath.Join(ws, ".git"))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(ws, ".git"))
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return ""
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(ws, gitdir)
	}
	common := gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	add(common, ReadOnly, "git repository of this worktree")
	add(gitdir, ReadOnly, "git repository of this worktree")
	if r, err := filepath.EvalSymlinks(common); err == nil {
		return r
	}
	return ""
}

// String is the declaration as `agentls sandbox show` prints it.
func (d Declaration) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "workspace  %s\n", d.Workspace)
	fmt.Fprintf(&b, "mode       %s\n", d.Mode)
	if d.Mode == ModeOff {
		b.WriteString("\nsandbox.mode is off: commands run unconfined, each after a question.\n")
		return b.String()
	}
	langs := "none found"
	if len(d.Languages) > 0 {
		langs = strings.Join(d.Languages, ", ")
	}
	fmt.Fprintf(&b, "languages  %s\n", langs)
	net := "none (a loopback of its own)"
	if d.Network {
		net = "the host's (sandbox.network)"
	}
	fmt.Fprintf(&b, "network    %s\n", net)
	mem := "no cap"
	if d.MemoryMax > 0 {
		mem = fmt.Sprintf("%d MiB (sandbox.memoryMiB)", d.MemoryMax>>20)
	}
	fmt.Fprintf(&b, "memory     %s\n", mem)
	fmt.Fprintf(&b, "processes  %d at once\n", d.MaxProcs)
	b.WriteString("\nThe command's file system holds these paths and nothing else:\n")
	w := 0
	for _, e := range d.Entries {
		w = max(w, len(e.Path))
	}
	for _, e := range d.Entries {
		what := string(e.Access)
		if e.Access == Symlink {
			what = "symlink -> " + e.Target
		}
		fmt.Fprintf(&b, "  %-*s  %-14s %s\n", w, e.Path, what, e.Why)
	}
	b.WriteString("\nWithin them:\n")
	fmt.Fprintf(&b, "  read as empty (tools.secretFiles, at any depth of the workspace): %s\n", strings.Join(d.SecretFiles, " "))
	b.WriteString("    except .git/config, shown with the credentials of its URLs stripped\n")
	fmt.Fprintf(&b, "  read-only, with their symlinks' targets (protected names, at any depth): %s\n", strings.Join(d.Protected, " "))
	if len(d.DenyRead) > 0 {
		fmt.Fprintf(&b, "  read as empty where a declared path holds them (sandbox.denyRead and defaults): %d paths\n", len(d.DenyRead))
	}
	if len(d.DroppedEnv) > 0 {
		fmt.Fprintf(&b, "\nVariables not passed (sockets to the user's agents): %s\n", strings.Join(d.DroppedEnv, " "))
	}
	fmt.Fprintf(&b, "\nCache layers: %s (agentls sandbox caches)\n", d.CacheLayers)
	return b.String()
}
