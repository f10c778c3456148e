package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// goOverlay serves unsaved Go buffers to go commands through the go
// command's own -overlay flag (set in GOFLAGS), so the checks run in the
// real workspace without copying it: the copy costs ~0.3-0.5 s per 1,000
// files, the overlay file a millisecond. It applies only when every
// command is a go command and every buffer a .go file, since nothing else
// reads the overlay. It returns the GOFLAGS value to set, the stand-in
// files' paths, in every form go may print them, mapped to the real ones,
// and a cleanup.
func goOverlay(root string, cmds []string, files map[string][]byte, env []string) (string, map[string]string, func(), bool, error) {
	if len(files) == 0 {
		return "", nil, nil, false, nil
	}
	for _, c := range cmds {
		if f := strings.Fields(c); len(f) == 0 || f[0] != "go" {
			return "", nil, nil, false, nil
		}
	}
	for rel := range files {
		if !strings.HasSuffix(rel, ".go") {
			return "", nil, nil, false, nil
		}
	}
	dir, err := os.MkdirTemp("", "agentls-gooverlay")
	if err != nil {
		return "", nil, nil, false, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	replace := map[string]string{}
	i := 0
	for rel, text := range files {
		local, err := filepath.Localize(rel)
		if err != nil {
			cleanup()
			return "", nil, nil, false, fmt.Errorf("overlay path %q: %w", rel, err)
		}
		tmp := filepath.Join(dir, fmt.Sprintf("%d_%s", i, filepath.Base(local)))
		i++
		if err := os.WriteFile(tmp, text, 0o600); err != nil {
			cleanup()
			return "", nil, nil, false, err
		}
		replace[filepath.Join(root, local)] = tmp
	}
	data, _ := json.Marshal(map[string]any{"Replace": replace})
	spec := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(spec, data, 0o600); err != nil {
		cleanup()
		return "", nil, nil, false, err
	}
	flags := os.Getenv("GOFLAGS")
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GOFLAGS="); ok {
			flags = v
		}
	}
	return strings.TrimSpace(flags + " -overlay=" + spec), standIns(root, replace), cleanup, true, nil
}

// standIns maps every form in which go may print a stand-in file back to
// the real file: go prints a path relative to its working directory (the
// workspace, as given or with its symlinks resolved) when that is shorter,
// so a workspace directly under $TMPDIR sees "../agentls-gooverlayN/0_a.go",
// and the temporary directory may itself be reached through a symlink.
func standIns(root string, replace map[string]string) map[string]string {
	dirs := withResolved(root)
	back := map[string]string{}
	for real, tmp := range replace {
		for _, t := range withResolved(tmp) {
			back[t] = real
			for _, d := range dirs {
				rel, err := filepath.Rel(d, t)
				if err != nil || filepath.IsAbs(rel) {
					continue
				}
				back[rel] = real
				if !strings.HasPrefix(rel, "..") {
					back["."+string(filepath.Separator)+rel] = real
				}
			}
		}
	}
	return back
}

// withResolved is p and, when it differs, p with its symlinks resolved.
func withResolved(p string) []string {
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
		return []string{p, r}
	}
	return []string{p}
}

// rewriteStandIns replaces the stand-ins named in output with the real
// paths, longest first, so a relative form that is the tail of an absolute
// one never splits it.
func rewriteStandIns(output string, back map[string]string) string {
	if len(back) == 0 {
		return output
	}
	keys := make([]string, 0, len(back))
	for k := range back {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		output = strings.ReplaceAll(output, k, back[k])
	}
	return output
}
