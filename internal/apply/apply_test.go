package apply

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// memory is a Transport over a map whose writes go out only over the text
// planned on; hook runs before each write's check (another writer).
type memory struct {
	mu    sync.Mutex
	files map[string]string
	hook  func()
	drop  int // answer the next drop writes "applied" without making them
	late  int // make the next late writes but report them lost (a confirmation that came too late)
}

func (m *memory) Read(ctx context.Context, rel string) (Text, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.files[rel]
	return Text{Data: t, Exists: ok}, nil
}

func (m *memory) Write(ctx context.Context, b Batch) error {
	if m.hook != nil {
		m.hook()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range b.Changes {
		if t, ok := m.files[c.Rel]; ok != c.Cur.Exists || t != c.Cur.Data {
			return ErrStale
		}
	}
	if m.drop > 0 {
		m.drop--
		return ErrLost
	}
	for _, c := range b.Changes {
		m.files[c.Rel] = c.Next
	}
	if m.late > 0 {
		m.late--
		return ErrLost
	}
	return nil
}

func replace(old, new string) func(Text) (string, error) {
	return func(t Text) (string, error) {
		if strings.Count(t.Data, old) != 1 {
			return "", errors.New("old text not found exactly once")
		}
		return strings.Replace(t.Data, old, new, 1), nil
	}
}

// Two writers of one file at once, each changing its own line: both land,
// every time.
func TestConcurrentEditsBothLand(t *testing.T) {
	for run := range 50 {
		m := &memory{files: map[string]string{"f": "one\ntwo\nthree\n"}}
		a := New(m)
		var wg sync.WaitGroup
		for _, e := range [][2]string{{"one", "ONE"}, {"three", "THREE"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := a.Edit(context.Background(), "f", "", replace(e[0], e[1])); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if got := m.files["f"]; got != "ONE\ntwo\nTHREE\n" {
			t.Fatalf("run %d: %q", run, got)
		}
	}
}

// A change gone stale (the user typed between the plan and the write) is
// planned again on the newer text; one whose old text is gone fails with
// the plan's own error and writes nothing.
func TestStaleIsReplanned(t *testing.T) {
	m := &memory{files: map[string]string{"f": "a\nb\nc\n"}}
	typed := false
	m.hook = func() {
		if !typed {
			typed = true
			m.mu.Lock()
			m.files["f"] = "typed\na\nb\nc\n"
			m.mu.Unlock()
		}
	}
	a := New(m)
	if _, err := a.Edit(context.Background(), "f", "", replace("c\n", "C\n")); err != nil {
		t.Fatal(err)
	}
	if m.files["f"] != "typed\na\nb\nC\n" {
		t.Fatalf("got %q", m.files["f"])
	}
	typed = false
	m.hook = func() {
		if !typed {
			typed = true
			m.mu.Lock()
			m.files["f"] = "gone\n"
			m.mu.Unlock()
		}
	}
	_, err := a.Edit(context.Background(), "f", "", replace("a\n", "A\n"))
	if err == nil || !strings.Contains(err.Error(), "exactly once") || m.files["f"] != "gone\n" {
		t.Fatalf("err %v, file %q", err, m.files["f"])
	}
}

// An edit the other side reported applied but did not make is planned
// again; when it keeps being lost the call fails saying so.
func TestLostIsReplannedThenReported(t *testing.T) {
	m := &memory{files: map[string]string{"f": "x\n"}, drop: 1}
	a := New(m)
	if _, err := a.Edit(context.Background(), "f", "", replace("x", "y")); err != nil || m.files["f"] != "y\n" {
		t.Fatalf("err %v, file %q", err, m.files["f"])
	}
	m.drop = 100
	_, err := a.Edit(context.Background(), "f", "", replace("y", "z"))
	if !errors.Is(err, ErrLost) || m.files["f"] != "y\n" {
		t.Fatalf("err %v, file %q", err, m.files["f"])
	}
}

// An edit reported lost that in fact landed (VS Code's didChange came after
// the wait, or its git extension opened the file meanwhile) is the result,
// not planned again: planning "replace x" again on the text that already
// holds y failed with "not found", and a write_file of the same content
// said "nothing changed", both while the change was there.
func TestLostThatLandedAfterAllIsTheResult(t *testing.T) {
	m := &memory{files: map[string]string{"f": "x\n"}, late: 1}
	a := New(m)
	c, err := a.Edit(context.Background(), "f", "", replace("x", "y"))
	if err != nil || m.files["f"] != "y\n" || c.Next != "y\n" || c.Cur.Data != "x\n" || c.Noop() {
		t.Fatalf("err %v, change %+v, file %q", err, c, m.files["f"])
	}
	// A write of a whole new file, lost the same way.
	m.late = 1
	cs, err := a.Apply(context.Background(), []string{"g"}, Batch{}, func(cur map[string]Text) ([]Change, error) {
		return []Change{{Rel: "g", Cur: cur["g"], Next: "new\n"}}, nil
	})
	if err != nil || len(cs) != 1 || cs[0].Cur.Exists || m.files["g"] != "new\n" {
		t.Fatalf("err %v, changes %+v, file %q", err, cs, m.files["g"])
	}
}

// The VS Code sequence a clean-clone CI run met: a new file's creation is
// reported lost (the editor opened it empty, its didChange still to come),
// the second try, planned on the empty text, goes stale when that
// didChange arrives, and the third read finds the first try's text. The
// result is the first try: the file was created, not rewritten, and no
// try writes it again. Before, the call reported "wrote" over an empty
// file, and the model's next write_file found "nothing changed".
func TestCreationThatLandedLateIsReportedCreated(t *testing.T) {
	m := &memory{files: map[string]string{}}
	tries := 0
	m.hook = func() {
		tries++
		switch tries {
		case 1:
			m.mu.Lock()
			m.files["g"] = "" // the editor opened it empty; the write is checked against no file
			m.mu.Unlock()
		case 2:
			m.mu.Lock()
			m.files["g"] = "new\n" // the first try's text arrives; this try is stale
			m.mu.Unlock()
		}
	}
	a := New(m)
	cs, err := a.Apply(context.Background(), []string{"g"}, Batch{}, func(cur map[string]Text) ([]Change, error) {
		return []Change{{Rel: "g", Cur: cur["g"], Next: "new\n"}}, nil
	})
	if err != nil || len(cs) != 1 || cs[0].Cur.Exists || cs[0].Next != "new\n" || tries != 2 {
		t.Fatalf("err %v, changes %+v, tries %d", err, cs, tries)
	}
}

// A waiter for a busy path gives up when its context ends.
func TestClaimHonoursTheContext(t *testing.T) {
	a := New(&memory{files: map[string]string{}})
	release, err := a.claim(context.Background(), []string{"f"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.claim(ctx, []string{"f"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("claim of a busy path: %v", err)
	}
	release()
	r2, err := a.claim(context.Background(), []string{"f"})
	if err != nil {
		t.Fatal(err)
	}
	r2()
}

// The disk transport writes only over the text planned on, and a path
// through a symlink out of the root is never written (ErrMoved).
func TestDisk(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d/f"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := NewDisk(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = d.Write(ctx, Batch{Changes: []Change{{Rel: "d/f", Cur: Text{Data: "other\n", Exists: true}, Next: "new\n"}}})
	if !errors.Is(err, ErrStale) {
		t.Fatalf("write over text not planned on: %v", err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "d"), filepath.Join(root, "d.moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, "d/f"); !errors.Is(err, ErrMoved) {
		t.Fatalf("read through the swapped directory: %v", err)
	}
	err = d.Write(ctx, Batch{Changes: []Change{{Rel: "d/f", Cur: Text{Data: "old\n", Exists: true}, Next: "new\n"}}})
	if !errors.Is(err, ErrMoved) {
		t.Fatalf("write through the swapped directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f")); string(b) != "old\n" {
		t.Fatalf("written outside: %q", b)
	}
}

// A try reported lost, then tries gone stale (the user typing while the
// lost one may still land): the call does not claim that nothing was
// changed.
func TestLostThenStaleIsNotNothingChanged(t *testing.T) {
	m := &memory{files: map[string]string{"f": "x\n"}, drop: 1}
	n := 0
	m.hook = func() {
		n++
		if n > 1 {
			m.mu.Lock()
			m.files["f"] += "typed\n"
			m.mu.Unlock()
		}
	}
	_, err := New(m).Edit(context.Background(), "f", "", replace("x", "y"))
	if err == nil || !errors.Is(err, ErrLost) || strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err %v", err)
	}
}
