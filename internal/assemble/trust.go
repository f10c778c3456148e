package assemble

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/policy"
)

// WorkspaceSettings is the workspace's .agentls.json as a configuration
// source. The model can write that file, so the settings in it that widen
// what agentls may do (tools.allow, verify.commands, mcpServers,
// llm.baseURL, sandbox.*, …; see policy.WideningKeys) are held back until
// the user trusts the file's content. Trust is remembered by content hash:
// a changed file asks again. The user's own settings (the editor's, the
// environment) are trusted as they are.
type WorkspaceSettings struct {
	Source   config.Source
	Problems []config.Problem
	Path     string
	Content  []byte
	// Untrusted lists the widening keys held back; empty when the file
	// widens nothing or the user trusted this content. Workspace hook
	// files waiting for trust join it as "hooks in .claude/settings.json".
	Untrusted []string
	// HookFiles are the workspace's hook files (HookFiles) not trusted as
	// they are: trusting the settings trusts them too.
	HookFiles []HookFile
}

// TrustStore is the store of trusted workspace files in the state
// directory, which sandboxed commands cannot write.
func TrustStore(stateDir string) *policy.TrustStore {
	return policy.NewTrustStore(stateDir)
}

// ReadWorkspaceSettings reads root/.agentls.json, holding back what
// widens power unless store trusts this content, and the workspace's hook
// files of other agents (HookFiles), which run only once trusted. A nil
// store trusts nothing.
func ReadWorkspaceSettings(root string, store *policy.TrustStore) WorkspaceSettings {
	w := readSettingsFile(root, store)
	for _, h := range ReadHookFiles(root, store) {
		if h.Problem == "" && !h.Trusted {
			w.HookFiles = append(w.HookFiles, h)
		}
	}
	w.Untrusted = append(w.Untrusted, untrustedHooks(w.HookFiles)...)
	return w
}

func readSettingsFile(root string, store *policy.TrustStore) WorkspaceSettings {
	w := WorkspaceSettings{Path: filepath.Join(root, config.FileName)}
	data, err := config.ReadFile(w.Path)
	if os.IsNotExist(err) {
		w.Source = config.Source{Name: config.FileName}
		return w
	}
	if err != nil {
		w.Source = config.Source{Name: config.FileName}
		w.Problems = []config.Problem{{Key: "(all)", Source: config.FileName, Msg: err.Error()}}
		return w
	}
	return HoldBack(config.FileName, w.Path, data, store)
}

// EditorWorkspaceFile names the editor's workspace-scope settings (VS
// Code's .vscode/settings.json and folder settings) in the trust store and
// in the question: like .agentls.json, they are files in the workspace the
// model can write.
func EditorWorkspaceFile(root string) string {
	return filepath.Join(root, ".vscode", "settings.json")
}

// HoldBack makes settings a source named name, with the keys that widen
// power held back unless store trusts this content of the file at path.
// .agentls.json and the editor's workspace-scope settings go through it.
func HoldBack(name, path string, data []byte, store *policy.TrustStore) WorkspaceSettings {
	w := WorkspaceSettings{Path: path, Content: data}
	w.Source, w.Problems = config.FromJSON(name, data)
	var obj map[string]any
	if json.Unmarshal(data, &obj) != nil {
		return w
	}
	keys := policy.WideningKeys(obj)
	if len(keys) == 0 || (store != nil && store.Trusted(w.Path, data)) {
		return w
	}
	w.Untrusted = keys
	for k := range w.Source.Values {
		for _, wk := range keys {
			if k == wk || strings.HasPrefix(k, wk+".") || strings.HasPrefix(wk, k+".") {
				delete(w.Source.Values, k)
			}
		}
	}
	return w
}

// Question is what the user is asked before the held-back settings apply:
// the settings held back, and the commands of the hook files.
func (w WorkspaceSettings) Question() string {
	var keys []string
	for _, k := range w.Untrusted {
		if !strings.HasPrefix(k, "hooks in ") {
			keys = append(keys, k)
		}
	}
	var parts []string
	if len(keys) > 0 {
		parts = append(parts, fmt.Sprintf("%s sets %s, which widen what agentls may run or reach.", w.Path, strings.Join(keys, ", ")))
	}
	if q := hookQuestion(w.HookFiles); q != "" {
		parts = append(parts, q+" They would run in the sandbox on every such event of every task.")
	}
	return strings.Join(parts, " ") + " A workspace file can be written by the model, so these apply only once you trust this content. Trust it?"
}

// Trust remembers the current content of the file and of the untrusted
// hook files as trusted.
func (w WorkspaceSettings) Trust(store *policy.TrustStore) error {
	if store == nil {
		return nil
	}
	for _, h := range w.HookFiles {
		if err := store.Trust(h.Path, h.Content); err != nil {
			return err
		}
	}
	if w.Content == nil {
		return nil
	}
	return store.Trust(w.Path, w.Content)
}
