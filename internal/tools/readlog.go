package tools

import (
	"fmt"
	"path"
	"sync"
)

// readLog is what the model has seen of the workspace's files in this
// task: the files it read, and those it wrote (whose text it knows). With
// Options.ReadBeforeEdit, an edit of an existing file outside it is refused
// with a message to read the file first: an edit of imagined text is the
// cheapest mistake to stop. A file changed since it was read is not
// refused here; the write's compare-and-swap deals with that.
type readLog struct {
	mu   sync.Mutex
	seen map[string]bool
}

func key(rel string) string { return path.Clean(rel) }

// saw records that the model has seen rel's text; nil records nothing.
func (l *readLog) saw(rels ...string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	for _, r := range rels {
		l.seen[key(r)] = true
	}
}

// check returns the refusal of an edit of rel the model has not read;
// nil when it has, or when no log is kept (the rule is off).
func (l *readLog) check(rel string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[key(rel)] {
		return nil
	}
	return fmt.Errorf("%s has not been read in this task: read it with read_file first, then edit what it says (an edit of text from memory is refused)", rel)
}
