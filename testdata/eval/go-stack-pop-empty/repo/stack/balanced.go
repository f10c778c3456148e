package stack

// Balanced reports whether the brackets in s are balanced.
func Balanced(s string) bool {
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	var st Stack[rune]
	for _, r := range s {
		switch r {
		case '(', '[', '{':
			st.Push(r)
		case ')', ']', '}':
			if st.Len() == 0 || st.Pop() != pairs[r] {
				return false
			}
		}
	}
	return st.Len() == 0
}
