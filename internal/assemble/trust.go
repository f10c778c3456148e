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
	// widens nothing or the user trusted this content.
	Untrusted []string
}

// TrustStore is the store of trusted workspace files in the state
// directory, which sandboxed commands cannot write.
func TrustStore(stateDir string) *policy.TrustStore {
	return policy.NewTrustStore(stateDir)
}

// ReadWorkspaceSettings reads root/.agentls.json, holding back what
// widens power unless store trusts this content. A nil store trusts
// nothing.
func ReadWorkspaceSettings(root string, store *policy.TrustStore) WorkspaceSettings {
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

// Question is what the user is asked before the held-back settings apply.
func (w WorkspaceSettings) Question() string {
	return fmt.Sprintf("%s sets %s, which widen what agentls may run or reach. A workspace file can be written by the model, so these apply only once you trust this content. Trust it?",
		w.Path, strings.Join(w.Untrusted, ", "))
}

// Trust remembers the file's current content as trusted.
func (w WorkspaceSettings) Trust(store *policy.TrustStore) error {
	if store == nil || w.Content == nil {
		return nil
	}
	return store.Trust(w.Path, w.Content)
}
