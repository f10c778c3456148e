package strutil

import "strings"

// ReverseWords returns the words of s in reverse order, separated by
// single spaces.
func ReverseWords(s string) string {
	words := strings.Split(s, " ")
	for i, j := 0, len(words)-1; i < j; i, j = i+1, j-1 {
		words[i], words[j] = words[j], words[i]
	}
	return strings.Join(words, " ")
}
