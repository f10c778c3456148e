// Package textcut cuts UTF-8 text on character boundaries. Half a
// character is invalid UTF-8: editors and terminals show it as U+FFFD and
// JSON encoders replace it, so every cap on text the model, the user or a
// transcript sees cuts here. It imports nothing of agentls.
package textcut

import "unicode/utf8"

// Head is the longest prefix of s of at most n bytes that ends on a
// character boundary.
func Head[T ~string | ~[]byte](s T, n int) T { return s[:Floor(s, n)] }

// Floor is the last character boundary at or before byte offset i of s,
// clamped to 0..len(s).
func Floor[T ~string | ~[]byte](s T, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return max(i, 0)
}

// Ceil is the first character boundary at or after byte offset i of s,
// clamped to 0..len(s).
func Ceil[T ~string | ~[]byte](s T, i int) int {
	i = max(i, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return min(i, len(s))
}
