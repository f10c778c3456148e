package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// wideningKeys are the settings that give the model more power than the
// defaults when a workspace file sets them:
//   - tools.allow runs commands without a question;
//   - tools.secretFiles replaces the default list, so [] exposes .env;
//   - verify.commands runs programs after every edit;
//   - mcpServers starts programs (stdio) or sends code to a URL;
//   - llm.baseURL sends the code and the API key to another server;
//   - sandbox.* loosens the sandbox (mode off, network, writable roots);
//   - hooks runs programs on the task's events.
//
// Not widening: tools.deny (it only adds refusals, and the user's own
// settings come first), llm.apiKey (the user's key is not sent anywhere
// new: llm.baseURL is what redirects it), llm.model, llm.api, agent.*,
// verify.enabled/timeoutSeconds, sessions.*.
var wideningKeys = []string{"tools.allow", "tools.secretFiles", "verify.commands", "mcpServers", "llm.baseURL", "sandbox", "hooks"}

// Widens reports whether a setting, set in a workspace file, can give the
// model more power than the defaults, so that it applies only once the
// user trusts the file (for some values: WideningKeys decides per value).
func Widens(key string) bool {
	for _, k := range wideningKeys {
		if key == k || strings.HasPrefix(key, k+".") {
			return true
		}
	}
	return false
}

// WideningKeys returns, sorted, the settings in a workspace settings object
// (an .agentls.json, or the agentls section of workspace editor settings;
// nested {"tools":{"allow":…}} or dotted {"tools.allow":…}, as config
// accepts) that widen what the model may do, so they apply only after the
// user trusts the file. A key set to null or "" is unset, as in config. A
// value that only narrows is not reported: an empty tools.allow,
// verify.commands, sandbox.writableRoots or mcpServers, sandbox.network
// false, and sandbox.mode "workspace-write" or "read-only". Every other
// sandbox.* key is reported, known or not.
func WideningKeys(settings map[string]any) []string {
	found := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok && prefix == "sandbox" {
			for k, sub := range m {
				walk("sandbox."+k, sub)
			}
			return
		}
		for _, k := range wideningKeys {
			if prefix == k || strings.HasPrefix(prefix, k+".") {
				if widens(prefix, v) {
					found[prefix] = true
				}
				return
			}
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, sub := range obj {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			walk(key, sub)
		}
	}
	walk("", settings)
	out := make([]string, 0, len(found))
	for k := range found {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func widens(key string, v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		if x == "" {
			return false
		}
		if key == "sandbox.mode" {
			return x != "workspace-write" && x != "read-only"
		}
	case bool:
		if key == "sandbox.network" {
			return x
		}
	case []any:
		if key == "tools.secretFiles" {
			return true // replacing the list can only drop defaults
		}
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// TrustStore remembers which workspace settings files the user trusted,
// by absolute path and SHA-256 of the content, in <dir>/trust.json (0600,
// replaced atomically). A changed file is not trusted until the user
// approves it again; only the last approved content of a path is kept.
//
// The directory must be one the sandbox does not let commands write (the
// state directory, not ~/.cache), or the model could trust its own file.
// Two processes trusting at once may lose one approval; it is asked again.
type TrustStore struct {
	dir string
	mu  sync.Mutex
}

// NewTrustStore returns the store kept in dir (created on the first Trust).
func NewTrustStore(dir string) *TrustStore { return &TrustStore{dir: dir} }

// errCorrupt marks a store that is not valid JSON; Trust replaces it.
var errCorrupt = errors.New("not a trust store")

type trustFile struct {
	Version int               `json:"version"`
	Files   map[string]string `json:"files"` // absolute path → hex SHA-256
}

func (s *TrustStore) file() string { return filepath.Join(s.dir, "trust.json") }

func trustKey(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", path, err)
	}
	return filepath.Clean(abs), nil
}

func digest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

func (s *TrustStore) load() (trustFile, error) {
	t := trustFile{Version: 1, Files: map[string]string{}}
	data, err := os.ReadFile(s.file())
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("read %s: %w", s.file(), err)
	}
	if err := json.Unmarshal(data, &t); err != nil || t.Files == nil {
		return trustFile{Version: 1, Files: map[string]string{}}, fmt.Errorf("%s: %w (%v)", s.file(), errCorrupt, err)
	}
	return t, nil
}

// Trusted reports whether the user approved this content of the file at
// path. An unreadable or corrupt store trusts nothing.
func (s *TrustStore) Trusted(path string, content []byte) bool {
	key, err := trustKey(path)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.load()
	return err == nil && t.Files[key] == digest(content)
}

// Trust records the user's approval of this content of the file at path.
// A corrupt store is replaced.
func (s *TrustStore) Trust(path string, content []byte) error {
	key, err := trustKey(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.load()
	if err != nil && !errors.Is(err, errCorrupt) {
		return err
	}
	t.Files[key] = digest(content)
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.file()); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}
