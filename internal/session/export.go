package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BundleFormat names the layout of an exported session.
const BundleFormat = "agentls-session/1"

// Bundle is a session taken out of its workspace (Export) to be put into
// another one (Import), on this machine or another: its file's records as
// they are, and its transcripts by name. Nothing in it depends on the
// path it was recorded at; Import writes the new workspace's path and
// transcript places.
type Bundle struct {
	Format      string            `json:"format"`
	ID          string            `json:"id"`
	Workspace   string            `json:"workspace"` // where it was recorded, for people
	Records     []json.RawMessage `json:"records"`
	Transcripts map[string]string `json:"transcripts,omitempty"` // file name → Markdown
}

// ErrExists is wrapped by Import when the workspace has the session
// already.
var ErrExists = errors.New("session exists already")

// Export reads session id with its transcripts. What was stored is
// already redacted.
func (s *Store) Export(id string) (*Bundle, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	b := &Bundle{Format: BundleFormat, ID: id, Workspace: s.root, Transcripts: map[string]string{}}
	warns, err := readLines(s.sessionPath(id), func(r map[string]json.RawMessage) {
		line, err := json.Marshal(r)
		if err != nil {
			return
		}
		b.Records = append(b.Records, line)
		if tr, ok := r["transcript"]; ok {
			var p string
			if json.Unmarshal(tr, &p) == nil && p != "" {
				name := filepath.Base(p)
				// Only the store's own transcripts travel: a path
				// elsewhere is not read.
				if filepath.Dir(p) == s.transcriptsDir() {
					if text, err := os.ReadFile(p); err == nil {
						b.Transcripts[name] = string(text)
					}
				}
			}
		}
	})
	if isNotExist(err) {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		s.opts.Warn(w)
	}
	return b, nil
}

// Import writes b as a session of this workspace: its records with this
// workspace's path and its transcripts under this store, so that it is
// continued (agentls run --session ID) or rewound here as if it had been
// recorded here. An existing session of the same ID is never replaced.
func (s *Store) Import(b *Bundle) error {
	switch {
	case b == nil || b.Format != BundleFormat:
		return fmt.Errorf("not an exported session (want format %q)", BundleFormat)
	case !ValidID(b.ID):
		return fmt.Errorf("exported session: bad id %q", b.ID)
	case len(b.Records) == 0:
		return fmt.Errorf("exported session %s has no records", b.ID)
	}
	if _, err := os.Lstat(s.sessionPath(b.ID)); err == nil {
		return fmt.Errorf("session %s: %w in %s", b.ID, ErrExists, s.root)
	}
	var out bytes.Buffer
	for i, raw := range b.Records {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("exported session %s: record %d: %v", b.ID, i+1, err)
		}
		var typ string
		_ = json.Unmarshal(r["type"], &typ)
		if i == 0 && typ != "session" {
			return fmt.Errorf("exported session %s: the first record is %q, not the session's", b.ID, typ)
		}
		if typ == "session" {
			ws, _ := json.Marshal(s.root)
			r["workspace"] = ws
		}
		if tr, ok := r["transcript"]; ok {
			var p string
			if json.Unmarshal(tr, &p) == nil && p != "" {
				np, _ := json.Marshal(filepath.Join(s.transcriptsDir(), filepath.Base(p)))
				r["transcript"] = np
			}
		}
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		out.WriteString(s.opts.Redact(string(line)) + "\n")
	}
	for name, text := range b.Transcripts {
		if name != filepath.Base(name) || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
			return fmt.Errorf("exported session %s: bad transcript name %q", b.ID, name)
		}
		if err := writeFileAtomic(filepath.Join(s.transcriptsDir(), name), []byte(s.opts.Redact(text))); err != nil {
			return fmt.Errorf("import session %s: %w", b.ID, err)
		}
	}
	// The session file last, written aside and linked into place: a
	// half-done import leaves no session, and of two imports at once one
	// fails (link never replaces a file).
	tmp, err := os.CreateTemp(s.sessionsDir(), ".import-*")
	if err != nil {
		return fmt.Errorf("import session %s: %w", b.ID, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(out.Bytes())
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), s.sessionPath(b.ID))
	}
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("session %s: %w in %s", b.ID, ErrExists, s.root)
	}
	if err != nil {
		return fmt.Errorf("import session %s: %w", b.ID, err)
	}
	return nil
}

// Rename gives an exported session a new ID (a fork): the bundle's, and
// its first record's.
func (b *Bundle) Rename(id string) error {
	if len(b.Records) == 0 {
		return errors.New("the session has no records")
	}
	var first map[string]json.RawMessage
	if err := json.Unmarshal(b.Records[0], &first); err != nil {
		return fmt.Errorf("the session's first record: %v", err)
	}
	first["id"], _ = json.Marshal(id)
	line, err := json.Marshal(first)
	if err != nil {
		return err
	}
	b.ID, b.Records[0] = id, line
	return nil
}
