package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// goOverlay serves unsaved Go buffers to go commands through the go
// command's own -overlay flag (set in GOFLAGS), so the checks run in the
// real workspace without copying it: the copy costs ~0.3-0.5 s per 1,000
// files, the overlay file a millisecond. It applies only when every
// command is a go command and every buffer a .go file, since nothing else
// reads the overlay. It returns the GOFLAGS value to set, the stand-in
// files' paths mapped to the real ones (go prints the stand-ins), and a
// cleanup.
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
	back := make(map[string]string, len(replace))
	for real, tmp := range replace {
		back[tmp] = real
	}
	return strings.TrimSpace(flags + " -overlay=" + spec), back, cleanup, true, nil
}
