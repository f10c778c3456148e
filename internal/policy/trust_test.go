package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestWideningKeys(t *testing.T) {
	for _, tc := range []struct {
		json string
		want []string
	}{
		{`{"tools":{"allow":["*"]}}`, []string{"tools.allow"}},
		{`{"tools.allow":["go test"]}`, []string{"tools.allow"}},
		{`{"tools":{"allow":[]}}`, nil},
		{`{"tools":{"deny":["rm"]}}`, nil},
		{`{"tools":{"secretFiles":[]}}`, []string{"tools.secretFiles"}},
		{`{"verify":{"commands":["make check"],"enabled":false}}`, []string{"verify.commands"}},
		{`{"verify.commands":[]}`, nil},
		{`{"mcpServers":{"x":{"command":"evil"}}}`, []string{"mcpServers"}},
		{`{"mcpServers.x":{"command":"evil"}}`, []string{"mcpServers.x"}},
		{`{"llm":{"baseURL":"https://evil.example/v1","model":"m","apiKey":"k"}}`, []string{"llm.baseURL"}},
		{`{"llm":{"baseURL":""}}`, nil},
		{`{"llm":{"baseURL":null}}`, nil},
		{`{"sandbox":{"mode":"off"}}`, []string{"sandbox.mode"}},
		{`{"sandbox":{"mode":"read-only","network":false}}`, nil},
		{`{"sandbox.network":true}`, []string{"sandbox.network"}},
		{`{"sandbox":{"writableRoots":["/"]}}`, []string{"sandbox.writableRoots"}},
		{`{"sandbox":{"somethingNew":1}}`, []string{"sandbox.somethingNew"}},
		{`{"sandbox":"off"}`, []string{"sandbox"}},
		{`{"agent":{"maxSteps":5},"llm":{"model":"x"}}`, nil},
		{`{"tools":{"allow":["*"]},"tools.allow":["ls"],"llm.baseURL":"x"}`, []string{"llm.baseURL", "tools.allow"}},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(tc.json), &m); err != nil {
			t.Fatal(err)
		}
		got := WideningKeys(m)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.json, got, tc.want)
		}
	}
}

func TestTrustStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := NewTrustStore(dir)
	cfg := filepath.Join(t.TempDir(), ".agentls.json")
	v1 := []byte(`{"tools":{"allow":["*"]}}`)
	if s.Trusted(cfg, v1) {
		t.Fatal("trusted before approval")
	}
	if err := s.Trust(cfg, v1); err != nil {
		t.Fatal(err)
	}
	if !s.Trusted(cfg, v1) {
		t.Fatal("not trusted after approval")
	}
	// A new store on the same directory (a restart) remembers.
	if !NewTrustStore(dir).Trusted(cfg, v1) {
		t.Fatal("approval not persisted")
	}
	// A changed file asks again; the same content elsewhere is another file.
	if s.Trusted(cfg, []byte(`{"tools":{"allow":["*"]} }`)) {
		t.Fatal("changed content trusted")
	}
	if s.Trusted(filepath.Join(filepath.Dir(cfg), "sub", ".agentls.json"), v1) {
		t.Fatal("other path trusted")
	}
	// Relative and absolute spellings are one key.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, cfg)
	if err == nil && !s.Trusted(rel, v1) {
		t.Error("relative spelling not recognised")
	}
	fi, err := os.Stat(filepath.Join(dir, "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("trust.json mode %v, want 0600", fi.Mode().Perm())
	}
	// Approving the new content replaces the old approval.
	v2 := []byte(`{"tools":{"allow":["go test"]}}`)
	if err := s.Trust(cfg, v2); err != nil {
		t.Fatal(err)
	}
	if !s.Trusted(cfg, v2) || s.Trusted(cfg, v1) {
		t.Error("the last approved content must be the trusted one")
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("state dir holds %d entries, want only trust.json", len(ents))
	}
}

func TestTrustStoreCorrupt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trust.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewTrustStore(dir)
	if s.Trusted("/w/.agentls.json", nil) {
		t.Fatal("a corrupt store trusted something")
	}
	if err := s.Trust("/w/.agentls.json", []byte("{}")); err != nil {
		t.Fatalf("a corrupt store must be replaced: %v", err)
	}
	if !s.Trusted("/w/.agentls.json", []byte("{}")) {
		t.Fatal("not trusted after replacing the corrupt store")
	}
	// A store that cannot be written is a clear error, not a panic.
	ro := NewTrustStore(filepath.Join(dir, "trust.json", "sub"))
	if err := ro.Trust("/w/x", nil); err == nil {
		t.Fatal("writing under a file succeeded")
	}
}
