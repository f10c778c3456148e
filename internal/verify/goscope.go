package verify

import (
	"bytes"
	"errors"
	"go/build"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// maxScopeDirs bounds GoScope's walk: a module with more directories is
// checked whole rather than analysed (the analysis would cost more than
// it saves).
const maxScopeDirs = 5000

// maxScopeFile is the most GoScope reads of one file; go/build reads only
// a file's header (package clause, imports, build constraints), so a larger
// file is truncated, never read whole.
const maxScopeFile = 1 << 20

// GoScope says which packages of the Go module at root the checks must
// cover after the files in changed (workspace-relative, '/'-separated)
// changed: the packages holding them and every package of the module that
// imports one of them, directly or through others, its tests included.
// Unchanged packages that import none of them build, vet and test exactly
// as before, so checking them again finds nothing new.
//
// unsaved holds texts that replace the disk's (the editor's buffers, the
// task's proposals). buildPkgs and testPkgs are the patterns for `go build` (no
// package with test files only: go build refuses those when named) and for
// `go vet` and `go test`, as "./dir" (or "."). whole is true when the
// change can reach every package (go.mod, go.sum, go.work, vendor/, a
// module too large to analyse, an unreadable go.mod) or the change's
// reach is every package anyway: then check "./...".
//
// A file of no package (a testdata file, an embedded asset, a file in a
// nested module or an ignored directory) counts for the nearest directory
// above it that holds a package, whose tests may read it; one under no
// package reaches none. Build constraints are those of this machine, as the
// checks' own go command sees them.
func GoScope(root string, changed []string, unsaved map[string][]byte) (buildPkgs, testPkgs []string, whole bool) {
	mod, err := modulePath(root)
	if err != nil {
		return nil, nil, true
	}
	for _, c := range changed {
		first, _, _ := strings.Cut(c, "/")
		switch {
		case c == "go.mod" || c == "go.sum" || c == "go.work" || c == "go.work.sum", first == "vendor":
			return nil, nil, true
		}
	}
	pkgs, ok := scanPackages(root, unsaved)
	if !ok {
		return nil, nil, true
	}
	// importers: package dir → the dirs of the module's packages that
	// import it (tests included).
	importers := map[string][]string{}
	for dir, p := range pkgs {
		for _, imp := range p.imports {
			if imp == mod {
				importers["."] = append(importers["."], dir)
			} else if rest, ok := strings.CutPrefix(imp, mod+"/"); ok {
				importers[rest] = append(importers[rest], dir)
			}
		}
	}
	reach := map[string]bool{}
	var queue []string
	for _, c := range changed {
		for _, dir := range owningDirs(c, pkgs) {
			if !reach[dir] {
				reach[dir] = true
				queue = append(queue, dir)
			}
		}
	}
	reachAll(reach, queue, importers)
	checked := 0
	for dir := range reach {
		p, ok := pkgs[dir]
		if !ok {
			continue // a package the change removed: its importers are in reach
		}
		checked++
		pat := "./" + dir
		if dir == "." {
			pat = "."
		}
		testPkgs = append(testPkgs, pat)
		if p.hasBuild {
			buildPkgs = append(buildPkgs, pat)
		}
	}
	if checked == len(pkgs) && checked > 0 {
		return nil, nil, true
	}
	sort.Strings(buildPkgs)
	sort.Strings(testPkgs)
	return buildPkgs, testPkgs, false
}

// goPackage is what GoScope needs of one directory's package.
type goPackage struct {
	imports  []string
	hasBuild bool // has non-test files go build accepts
}

// owningDirs are the package directories a changed file counts for: a Go
// file's own directory (also when the change removed the package: its
// importers still count), and for a file of no package there (data, a Go
// file under testdata, a nested module), the nearest directory above it
// that holds a package, whose tests may read it.
func owningDirs(rel string, pkgs map[string]*goPackage) []string {
	dir := pathpkg.Dir(rel)
	if _, ok := pkgs[dir]; ok {
		return []string{dir}
	}
	var out []string
	if strings.HasSuffix(rel, ".go") && !inIgnoredDir(dir) {
		out = append(out, dir)
	}
	for dir != "." && dir != "/" && dir != "" {
		dir = pathpkg.Dir(dir)
		if _, ok := pkgs[dir]; ok {
			return append(out, dir)
		}
	}
	return out
}

// inIgnoredDir reports whether the go command skips a directory on this
// path when it expands "./...".
func inIgnoredDir(dir string) bool {
	for _, part := range strings.Split(dir, "/") {
		if skipGoDir(part) {
			return true
		}
	}
	return false
}

func skipGoDir(name string) bool {
	return name != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		name == "testdata" || name == "vendor" || name == "node_modules")
}

// scanPackages reads the package of every directory "./..." names (nested
// modules excluded) through go/build, with unsaved's texts in place of the
// disk's. false: the tree is too large to be worth it.
func scanPackages(root string, unsaved map[string][]byte) (map[string]*goPackage, bool) {
	ctxt := build.Default
	ctxt.Dir = root
	ctxt.OpenFile = func(p string) (io.ReadCloser, error) {
		if rel, err := filepath.Rel(root, p); err == nil {
			if text, ok := unsaved[filepath.ToSlash(rel)]; ok {
				return io.NopCloser(bytes.NewReader(text)), nil
			}
		}
		return openHeader(p)
	}
	ctxt.ReadDir = func(dir string) ([]fs.FileInfo, error) {
		return readDirWith(root, dir, unsaved)
	}
	dirs := map[string]bool{}
	for rel := range unsaved {
		if strings.HasSuffix(rel, ".go") {
			dirs[pathpkg.Dir(rel)] = true
		}
	}
	ctxt.IsDir = func(p string) bool {
		if fi, err := os.Stat(p); err == nil {
			return fi.IsDir()
		}
		rel, err := filepath.Rel(root, p)
		return err == nil && dirs[filepath.ToSlash(rel)]
	}
	n := 0
	tooMany := false
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != root {
			if skipGoDir(d.Name()) {
				return fs.SkipDir
			}
			if fi, err := os.Lstat(filepath.Join(p, "go.mod")); err == nil && !fi.IsDir() {
				return fs.SkipDir // a nested module: not in "./..."
			}
		}
		if n++; n > maxScopeDirs {
			tooMany = true
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(root, p)
		dirs[filepath.ToSlash(rel)] = true
		return nil
	})
	if tooMany {
		return nil, false
	}
	pkgs := map[string]*goPackage{}
	for dir := range dirs {
		if inIgnoredDir(dir) {
			continue
		}
		bp, err := ctxt.ImportDir(filepath.Join(root, filepath.FromSlash(dir)), build.ImportComment)
		if bp == nil || (err != nil && len(bp.GoFiles)+len(bp.TestGoFiles)+len(bp.XTestGoFiles)+len(bp.CgoFiles) == 0) {
			var noGo *build.NoGoError
			if err != nil && !errors.As(err, &noGo) && len(bp.InvalidGoFiles) > 0 {
				// A file go/build could not read (a syntax error in its
				// header): the package is still there for the checks to
				// report on, importers unknown.
				pkgs[dir] = &goPackage{hasBuild: true}
			}
			continue
		}
		p := &goPackage{hasBuild: len(bp.GoFiles)+len(bp.CgoFiles) > 0}
		p.imports = append(p.imports, bp.Imports...)
		p.imports = append(p.imports, bp.TestImports...)
		p.imports = append(p.imports, bp.XTestImports...)
		pkgs[dir] = p
	}
	return pkgs, true
}

// readDirWith lists dir as the checks will see it: the disk's regular
// files and directories plus unsaved's files in it.
func readDirWith(root, dir string, unsaved map[string][]byte) ([]fs.FileInfo, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	seen := map[string]bool{}
	var out []fs.FileInfo
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || (!fi.Mode().IsRegular() && !fi.IsDir()) {
			continue
		}
		seen[e.Name()] = true
		out = append(out, fi)
	}
	rel, _ := filepath.Rel(root, dir)
	rel = filepath.ToSlash(rel)
	for p, text := range unsaved {
		if pathpkg.Dir(p) == rel && !seen[pathpkg.Base(p)] {
			out = append(out, unsavedInfo{name: pathpkg.Base(p), size: int64(len(text))})
		}
	}
	return out, nil
}

// openHeader opens a workspace file for go/build, which reads only its
// header: a regular file only (openRegular), at most maxScopeFile bytes.
func openHeader(p string) (io.ReadCloser, error) {
	f, _, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(f, maxScopeFile), f}, nil
}

// modulePath reads the module directive of root's go.mod.
func modulePath(root string) (string, error) {
	b, err := readManifest(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			rest = strings.Trim(strings.TrimSpace(rest), `"`+"`")
			if rest != "" {
				return rest, nil
			}
		}
	}
	return "", errors.New("go.mod names no module")
}

// unsavedInfo is the FileInfo of a buffer that is not on disk.
type unsavedInfo struct {
	name string
	size int64
}

func (o unsavedInfo) Name() string       { return o.name }
func (o unsavedInfo) Size() int64        { return o.size }
func (o unsavedInfo) Mode() fs.FileMode  { return 0o644 }
func (o unsavedInfo) ModTime() time.Time { return time.Time{} }
func (o unsavedInfo) IsDir() bool        { return false }
func (o unsavedInfo) Sys() any           { return nil }

// ScopeGoChecks narrows the detected Go checks in cmds ("go build ./...",
// "go vet ./...", "go test ./...") to the packages GoScope says the change
// reaches, and drops one that has none to check; other commands, and all
// of them when the change reaches the whole module, are kept as they are.
func ScopeGoChecks(root string, cmds, changed []string, unsaved map[string][]byte) []string {
	var hasGo bool
	for _, c := range cmds {
		if goCheck(c) != "" {
			hasGo = true
		}
	}
	if !hasGo {
		return cmds
	}
	buildPkgs, testPkgs, whole := GoScope(root, changed, unsaved)
	if whole {
		return cmds
	}
	var out []string
	for _, c := range cmds {
		pkgs := testPkgs
		switch goCheck(c) {
		case "":
			out = append(out, c)
			continue
		case "build":
			pkgs = buildPkgs
		}
		if len(pkgs) == 0 {
			continue
		}
		quoted := make([]string, len(pkgs))
		for i, p := range pkgs {
			quoted[i] = shellQuote(p)
		}
		out = append(out, strings.TrimSuffix(c, "./...")+strings.Join(quoted, " "))
	}
	return out
}

// goCheck names the detected Go check c is ("build", "vet", "test"), or "".
func goCheck(c string) string {
	for _, v := range []string{"build", "vet", "test"} {
		if c == "go "+v+" ./..." {
			return v
		}
	}
	return ""
}

// shellQuote quotes a package pattern for sh -c: a directory name is the
// model's to choose, and must stay one argument.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("./_-+", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
