package stack

import "testing"

func TestPopEmptyHidden(t *testing.T) {
	var s Stack[int]
	if v, ok := s.Pop(); ok || v != 0 {
		t.Errorf("Pop on empty = %v, %v", v, ok)
	}
	if v, ok := s.Peek(); ok || v != 0 {
		t.Errorf("Peek on empty = %v, %v", v, ok)
	}
	s.Push(3)
	s.Push(4)
	if v, ok := s.Peek(); !ok || v != 4 {
		t.Errorf("Peek = %v, %v", v, ok)
	}
	if v, ok := s.Pop(); !ok || v != 4 || s.Len() != 1 {
		t.Errorf("Pop = %v, %v (len %d)", v, ok, s.Len())
	}
	for in, want := range map[string]bool{"([]{})": true, "(]": false, ")": false, "((": false, "": true} {
		if got := Balanced(in); got != want {
			t.Errorf("Balanced(%q) = %v", in, got)
		}
	}
}
