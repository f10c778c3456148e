package verify

import (
	"context"
	"encoding/json"
	pathpkg "path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// cargoMetadataTimeout bounds `cargo metadata`; past it the checks run
// whole.
const cargoMetadataTimeout = 30 * time.Second

// cargoMetadata is what RustScope reads of `cargo metadata --no-deps`.
type cargoMetadata struct {
	Packages []struct {
		Name         string `json:"name"`
		ID           string `json:"id"`
		ManifestPath string `json:"manifest_path"`
		Dependencies []struct {
			Path string `json:"path"`
		} `json:"dependencies"`
	} `json:"packages"`
	WorkspaceRoot           string   `json:"workspace_root"`
	WorkspaceDefaultMembers []string `json:"workspace_default_members"`
}

// RustScope narrows `cargo check` and `cargo test` to the workspace
// crates holding a changed file and the members that depend on them,
// directly or through others (dev-dependencies included): files lists
// their "-p name" arguments. Cargo's own crate graph, from `cargo metadata
// --offline --no-deps` run as a check runs (sandboxed, in a view whose
// writes are discarded), makes this exact, not an estimate. Only the
// crates the whole command checks count (the workspace's default
// members). The scope is whole when a change reaches a manifest, the lock
// file, cargo's configuration, or a file of no member; when the sandbox
// is not there to run `cargo metadata` in; or when every member is
// reached.
func RustScope(ctx context.Context, in ScopeInput) scopeResult {
	whole := scopeResult{whole: true}
	for _, c := range in.Changed {
		b := pathpkg.Base(c)
		first, _, _ := strings.Cut(c, "/")
		if b == "Cargo.toml" || b == "Cargo.lock" || first == ".cargo" || strings.HasPrefix(b, "rust-toolchain") {
			return whole
		}
	}
	if in.Sandbox.Mode == proc.ModeOff {
		return whole
	}
	if ok, _ := proc.Available(); !ok {
		return whole
	}
	sb := in.Sandbox
	sb.View, sb.ViewThrough = map[string][]byte{}, nil
	ctx, cancel := context.WithTimeout(ctx, cargoMetadataTimeout)
	defer cancel()
	pr, err := proc.Run(ctx, proc.Spec{Argv: []string{"cargo", "metadata", "--offline", "--no-deps", "--format-version", "1"},
		Dir: in.Root, Env: checkEnv(in.Root, in.Env), Secrets: in.Secrets, OutputLimit: 16 << 20, Sandbox: sb})
	if err != nil || pr.ExitCode != 0 {
		return whole
	}
	// The JSON is one line on stdout; stderr (warnings) shares Output.
	var meta cargoMetadata
	ok := false
	for _, line := range strings.Split(pr.Output, "\n") {
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &meta) == nil {
			ok = true
			break
		}
	}
	if !ok || meta.WorkspaceDefaultMembers == nil {
		return whole
	}
	return rustScopeOf(in.Root, meta, in.Changed)
}

// rustScopeOf is RustScope's reading of the metadata.
func rustScopeOf(root string, meta cargoMetadata, changed []string) scopeResult {
	whole := scopeResult{whole: true}
	wsRoot := meta.WorkspaceRoot
	if wsRoot == "" {
		wsRoot = root
	}
	dirOf := map[string]string{}  // member dir (workspace-relative) → id
	nameOf := map[string]string{} // id → name
	byDir := map[string]string{}  // absolute member dir → id
	for _, p := range meta.Packages {
		abs := filepath.Dir(p.ManifestPath)
		rel, err := filepath.Rel(root, abs)
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			continue
		}
		dirOf[filepath.ToSlash(rel)] = p.ID
		nameOf[p.ID] = p.Name
		byDir[abs] = p.ID
	}
	dependents := map[string][]string{}
	for _, p := range meta.Packages {
		for _, d := range p.Dependencies {
			if id, ok := byDir[filepath.Clean(d.Path)]; ok && d.Path != "" && id != p.ID {
				dependents[id] = append(dependents[id], p.ID)
			}
		}
	}
	reach := map[string]bool{}
	var queue []string
	for _, c := range changed {
		if inertDoc(c) {
			continue
		}
		best := ""
		found := false
		for dir := range dirOf {
			if (dir == "." || c == dir || strings.HasPrefix(c, dir+"/")) && (!found || len(dir) > len(best)) {
				best, found = dir, true
			}
		}
		if !found {
			return whole
		}
		if id := dirOf[best]; !reach[id] {
			reach[id] = true
			queue = append(queue, id)
		}
	}
	reachAll(reach, queue, dependents)
	var names []string
	for _, id := range meta.WorkspaceDefaultMembers {
		if reach[id] {
			names = append(names, "-p "+shellQuote(nameOf[id]))
		}
	}
	if len(names) == len(meta.WorkspaceDefaultMembers) && len(names) > 0 {
		return whole
	}
	sort.Strings(names)
	return scopeResult{files: names}
}
