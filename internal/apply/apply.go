// Package apply is the one path a change takes to the user's files: the
// tools' edits, the ACP client's fs/write_text_file, the language
// server's workspace/applyEdit or its disk fallback, review accept, undo,
// rewind and a worktree's merge all go through an Applier.
//
// Every write is a compare-and-swap: a change is planned on a file's text
// as read (Text), and goes out only over that text. Per path, one change
// is in flight at a time (a slot that a waiter gives up when its context
// ends, so no mutex is held across a request to the client); the front
// end's Transport checks, when the change goes out, that the file is
// still the text it was planned on, and confirms afterwards that it
// landed. A change refused as stale, or that the other side reported
// applied but did not make, is planned again on the current text; a plan
// that no longer fits fails the call with the plan's own error, which the
// model can act on. Nothing is written over text that was not read.
//
// The package does no planning of its own (internal/review plans accept,
// undo and merge; the tools plan edits) and imports no front end.
package apply

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/edits"
)

// Text is a file as the user has it, as read for a plan.
type Text struct {
	Data   string
	Exists bool
	// Held: the editor holds the file in a buffer at Version; a change
	// planned on it is sent for that version only.
	Held    bool
	Version int32
}

// Change turns one file from Cur, the text it was planned on, into Next;
// Delete removes it instead.
type Change struct {
	Rel    string
	Cur    Text
	Next   string
	Delete bool
	// Mode is the permission bits of a file the change makes (undo or
	// rewind putting back a file a command deleted); 0: the transport's
	// default. Only the disk transport can honour it.
	Mode fs.FileMode
}

// Noop reports whether the change leaves the file as it is.
func (c Change) Noop() bool { return !c.Delete && c.Cur.Exists && c.Cur.Data == c.Next }

// Batch is changes that go out together: one workspace/applyEdit, which
// the editor applies whole or not at all.
type Batch struct {
	Label string
	// Confirm asks the user to confirm in the editor (review accept).
	Confirm bool
	Changes []Change
}

// Transport is where a front end's files live: the disk, an LSP editor's
// buffers, an ACP client's files.
type Transport interface {
	// Read returns the file's text as the user has it now.
	Read(ctx context.Context, rel string) (Text, error)
	// Write makes the batch's changes. It fails with ErrStale when a file
	// is no longer the text its change was planned on (where it can
	// tell), ErrLost when the other side answered that it applied the
	// changes but its text does not have them, ErrMoved when a path does
	// not lead beneath the root now, and a *Refused when the editor or the
	// user refused the changes. It returns once the write is confirmed.
	Write(ctx context.Context, b Batch) error
}

var (
	// ErrStale: a file changed since its change was planned.
	ErrStale = errors.New("the file changed since the change was planned")
	// ErrLost: the editor answered that it applied a change its text
	// does not have.
	ErrLost = errors.New("the editor said it applied the change, but its text does not have it")
	// ErrMoved: a path does not lead to a file beneath the workspace now
	// (a directory swapped for a symlink out, by a command).
	ErrMoved = errors.New("the path does not lead beneath the workspace now")
)

// Refused is a batch the editor or the user refused; nothing was changed.
type Refused struct{ Reason string }

func (r *Refused) Error() string { return "the editor did not apply the change: " + r.Reason }

// Plan makes the changes to the files named, from their current texts
// (by path); it runs again on newer texts when a change went stale.
type Plan func(cur map[string]Text) ([]Change, error)

// Slots are the paths with a change in flight. Appliers over different
// transports of one workspace (an ACP connection's sessions, each with
// its own requests) share them, so their changes to a file take turns.
type Slots struct {
	mu   sync.Mutex
	busy map[string]chan struct{} // a path's change in flight; closed when it ends
}

// Applier carries changes through one Transport.
type Applier struct {
	t     Transport
	slots *Slots

	// Attempts bounds the plans a change gets (stale or lost ones are
	// planned again); Backoff is the wait before a retry after ErrMoved.
	Attempts int
	Backoff  time.Duration
	// Moved bounds the retries after ErrMoved: a path swapped out for a
	// moment lands once it is back.
	Moved int
}

// New returns an Applier over t.
func New(t Transport) *Applier { return Shared(t, &Slots{}) }

// Shared returns an Applier over t whose changes take turns with those of
// every Applier on the same slots.
func Shared(t Transport, s *Slots) *Applier {
	return &Applier{t: t, slots: s, Attempts: 4, Backoff: 2 * time.Millisecond, Moved: 40}
}

// Over returns an Applier over t whose changes take turns with a's (the
// language server's disk transport for the files a command carries in,
// beside its editor transport).
func (a *Applier) Over(t Transport) *Applier { return Shared(t, a.slots) }

// Transport returns the transport changes go through.
func (a *Applier) Transport() Transport { return a.t }

// Edit plans one file's change on its current text (plan gets the text
// and returns the next one) and writes it over that text only. The change
// that landed is returned; a plan that returns the text unchanged writes
// nothing (the change returned is then a Noop).
func (a *Applier) Edit(ctx context.Context, rel, label string, plan func(cur Text) (next string, err error)) (Change, error) {
	var seen Text
	cs, err := a.Apply(ctx, []string{rel}, Batch{Label: label}, func(cur map[string]Text) ([]Change, error) {
		t := cur[rel]
		seen = t
		next, err := plan(t)
		if err != nil {
			return nil, err
		}
		return []Change{{Rel: rel, Cur: t, Next: next}}, nil
	})
	if err != nil {
		return Change{}, err
	}
	if len(cs) == 0 {
		return Change{Rel: rel, Cur: seen, Next: seen.Data}, nil
	}
	return cs[0], nil
}

// Apply reads the files named, plans on their texts, and writes the
// planned changes (those that change something) as one batch (b gives
// its label and whether the user confirms it) over those texts only. It
// returns the changes that landed.
func (a *Applier) Apply(ctx context.Context, rels []string, b Batch, plan Plan) ([]Change, error) {
	rels = slices.Clone(rels)
	slices.Sort(rels)
	rels = slices.Compact(rels)
	release, err := a.claim(ctx, rels)
	if err != nil {
		return nil, err
	}
	defer release()
	var last error
	lost := false       // a try was reported lost: it may land yet
	var sent [][]Change // what each write that went stale or lost sent, oldest first
	moved := 0
	for attempt := 0; attempt < a.Attempts; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cs, err := a.once(ctx, rels, b, plan, sent)
		switch {
		case err == nil:
			return cs, nil
		case errors.Is(err, ErrMoved) && moved < a.Moved:
			moved++
			if err := sleep(ctx, a.Backoff); err != nil {
				return nil, err
			}
		case errors.Is(err, ErrStale), errors.Is(err, ErrLost):
			attempt++
			last = err
			lost = lost || errors.Is(err, ErrLost)
			if len(cs) > 0 {
				sent = append(sent, cs)
			}
		default:
			return nil, err
		}
	}
	if errors.Is(last, ErrLost) {
		return nil, fmt.Errorf("%w (%d times); nothing is known to be changed: read %s again and retry", last, a.Attempts, names(rels))
	}
	if lost {
		// A try the editor answered applied, its text without it, may
		// have landed since, merged with the typing that made the later
		// tries stale: "nothing was changed" is not known.
		return nil, fmt.Errorf("%s kept changing while the change was made (%d tries), and %w once; nothing is known to be changed: read %s again and retry", names(rels), a.Attempts, ErrLost, names(rels))
	}
	return nil, fmt.Errorf("%s kept changing while the change was made (%d tries); nothing was changed: read it again and retry", names(rels), a.Attempts)
}

// once reads, plans and writes once. sent is what earlier tries wrote and
// were told went stale or lost, oldest first: when every file now holds
// what one of them sent, that try landed after all (the editor's
// didChange came late, or an extension opened the file meanwhile) and is
// the result, the oldest first, so that a file the call created is
// reported created; planning it again would fail on its own text
// ("already there", "not found"). On a failed write once returns the
// changes it sent with the error.
func (a *Applier) once(ctx context.Context, rels []string, b Batch, plan Plan, sent [][]Change) ([]Change, error) {
	cur := make(map[string]Text, len(rels))
	for _, rel := range rels {
		t, err := a.t.Read(ctx, rel)
		if err != nil {
			return nil, err
		}
		cur[rel] = t
	}
	for _, try := range sent {
		if landedAfterAll(try, cur) {
			return try, nil
		}
	}
	cs, err := plan(cur)
	if err != nil {
		return nil, err
	}
	out := b
	out.Changes = nil
	for _, c := range cs {
		if _, ok := cur[c.Rel]; !ok {
			return nil, fmt.Errorf("apply: a change to %s, which the plan did not read", c.Rel)
		}
		if !c.Noop() && (c.Cur.Exists || !c.Delete) {
			out.Changes = append(out.Changes, c)
		}
	}
	if len(out.Changes) == 0 {
		return nil, nil
	}
	if err := a.t.Write(ctx, out); err != nil {
		return out.Changes, err
	}
	return out.Changes, nil
}

// landedAfterAll reports whether every change sent is in its file now.
func landedAfterAll(sent []Change, cur map[string]Text) bool {
	if len(sent) == 0 {
		return false
	}
	for _, c := range sent {
		t, ok := cur[c.Rel]
		switch {
		case !ok:
			return false
		case c.Delete:
			if t.Exists {
				return false
			}
		case !t.Exists || t.Data != c.Next:
			return false
		}
	}
	return true
}

func names(rels []string) string {
	if len(rels) == 1 {
		return rels[0]
	}
	return fmt.Sprintf("%d files", len(rels))
}

// claim takes the slots of the paths (sorted: two claims never wait for
// each other in a circle), waiting while another change to one of them is
// in flight; release gives them back.
func (a *Applier) claim(ctx context.Context, rels []string) (release func(), err error) {
	s := a.slots
	var held []string
	release = func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, rel := range held {
			close(s.busy[rel])
			delete(s.busy, rel)
		}
		held = nil
	}
	for _, rel := range rels {
		for {
			s.mu.Lock()
			if s.busy == nil {
				s.busy = map[string]chan struct{}{}
			}
			ch, taken := s.busy[rel]
			if !taken {
				s.busy[rel] = make(chan struct{})
				held = append(held, rel)
			}
			s.mu.Unlock()
			if !taken {
				break
			}
			select {
			case <-ch:
			case <-ctx.Done():
				release()
				return nil, ctx.Err()
			}
		}
	}
	return release, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Landed reports whether text, a file as the other side has it now, holds
// the change from base to next: it is next, or next's changed lines are
// in it and whatever else changed (the user's typing) lies apart from
// them (edits.Merge3 adds nothing to text).
func Landed(base, text, next string) bool {
	if text == next {
		return true
	}
	m := edits.Merge3(base, text, next)
	return len(m.Conflicts) == 0 && m.Text == text
}

// ErrChangedMeanwhile: a file a command's view carries in is no longer the
// text the carry planned on (Carry).
var ErrChangedMeanwhile = errors.New("changed by someone else while the command's writes were carried in: not written over")

// Carry writes one file a command's view carried in (tools.CarryWriter)
// through a: from old (absent unless existed) to next, or deleted, over
// that text only; a file that is no longer old fails with
// ErrChangedMeanwhile and is left as it is.
func Carry(ctx context.Context, a *Applier, rel string, old []byte, existed bool, next []byte, del bool) error {
	_, err := a.Apply(ctx, []string{rel}, Batch{Label: "agentls: " + rel}, func(cur map[string]Text) ([]Change, error) {
		t := cur[rel]
		if t.Exists != existed || t.Data != string(old) {
			return nil, ErrChangedMeanwhile
		}
		if del && !t.Exists {
			return nil, nil
		}
		return []Change{{Rel: rel, Cur: t, Next: string(next), Delete: del}}, nil
	})
	return err
}
