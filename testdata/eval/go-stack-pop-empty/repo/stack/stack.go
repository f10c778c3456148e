package stack

// Stack is a last-in first-out stack.
type Stack[T any] struct {
	items []T
}

// Push adds v on top.
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

// Pop removes and returns the top item.
func (s *Stack[T]) Pop() T {
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v
}

// Peek returns the top item.
func (s *Stack[T]) Peek() T {
	return s.items[len(s.items)-1]
}

// Len is the number of items.
func (s *Stack[T]) Len() int { return len(s.items) }
