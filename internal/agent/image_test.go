package agent

import (
	"encoding/json"
	"testing"
)

// A message without images encodes as before (recorded conversations and
// prompt caches depend on the bytes); one with images keeps them, and
// WithoutImages turns them into notes, leaving its input alone.
func TestMessageImages(t *testing.T) {
	b, err := json.Marshal(Message{Role: RoleUser, Content: "fix it"})
	if err != nil || string(b) != `{"role":"user","content":"fix it"}` {
		t.Fatalf("text-only message = %s, %v", b, err)
	}
	im := Image{MIME: "image/png", Data: "iVBORw0KGgo=", Name: "shot.png"} // 8 bytes
	if im.Size() != 8 {
		t.Errorf("Size = %d, want 8", im.Size())
	}
	msgs := []Message{{Role: RoleSystem, Content: "s"}, {Role: RoleUser, Content: "what is this?", Images: []Image{im}}}
	got := WithoutImages(msgs)
	if got[1].Images != nil || got[1].Content != "what is this?\n[image: shot.png, 1 KB]" {
		t.Errorf("WithoutImages = %+v", got[1])
	}
	if len(msgs[1].Images) != 1 || msgs[1].Content != "what is this?" {
		t.Errorf("WithoutImages changed its input: %+v", msgs[1])
	}
	if plain := msgs[:1]; &WithoutImages(plain)[0] != &plain[0] {
		t.Error("messages without images were copied")
	}
}
