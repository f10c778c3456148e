package session

import (
	"errors"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// A session created before its first task loads (with no task), is listed,
// takes a task, and is gone after Delete.
func TestCreateThenBeginThenDelete(t *testing.T) {
	st, err := Open(t.TempDir(), Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	id := st.NewID()
	if err := st.Create(id); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(id); err != nil {
		t.Fatalf("creating it again: %v", err)
	}
	s, err := st.Load(id)
	if err != nil || len(s.Tasks) != 0 || s.ID != id {
		t.Fatalf("load: %+v %v", s, err)
	}
	task, err := st.Begin(Begin{Session: id, Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if err := task.End(agent.Result{Status: agent.StatusOK, Reason: "done"}, nil); err != nil {
		t.Fatal(err)
	}
	if s, err := st.Load(id); err != nil || len(s.Tasks) != 1 {
		t.Fatalf("after a task: %+v %v", s, err)
	}
	if err := st.Delete(id); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("load after delete: %v", err)
	}
	if err := st.Delete(id); err != nil {
		t.Errorf("deleting it again: %v", err)
	}
	if infos, _ := st.List(); len(infos) != 0 {
		t.Errorf("listed after delete: %v", infos)
	}
}
