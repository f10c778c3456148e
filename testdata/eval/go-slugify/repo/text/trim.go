package text

import "strings"

// Squash collapses runs of spaces into one.
func Squash(s string) string { return strings.Join(strings.Fields(s), " ") }
