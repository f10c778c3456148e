package session

import (
	"encoding/json"
	"testing"
)

func TestBundleRename(t *testing.T) {
	b := &Bundle{ID: "old", Records: []json.RawMessage{json.RawMessage(`{"type":"session","id":"old","workspace":"/w"}`), json.RawMessage(`{"type":"task"}`)}}
	if err := b.Rename("new"); err != nil {
		t.Fatal(err)
	}
	var first map[string]string
	if err := json.Unmarshal(b.Records[0], &first); err != nil {
		t.Fatal(err)
	}
	if b.ID != "new" || first["id"] != "new" || first["type"] != "session" || first["workspace"] != "/w" || string(b.Records[1]) != `{"type":"task"}` {
		t.Fatalf("renamed: %s %s", b.ID, b.Records)
	}
	if err := (&Bundle{ID: "x"}).Rename("y"); err == nil {
		t.Fatal("a bundle without records was renamed")
	}
}
