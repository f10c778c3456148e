package verify

// byteColumn converts a 1-based column counted in unit on the given line
// into a 1-based byte column. A column past the end of the line keeps its
// distance from the end, so that "one past the last character" stays so.
func byteColumn(text string, col int, unit colUnit) int {
	if col <= 0 || unit == unitBytes {
		return col
	}
	want := col - 1 // units before the target character
	pos := 0        // units before the rune at byte i
	for i, r := range text {
		w := unitWidth(r, pos, unit)
		if want < pos+w {
			return i + 1
		}
		pos += w
	}
	return len(text) + (want - pos) + 1
}

func unitWidth(r rune, pos int, unit colUnit) int {
	switch unit {
	case unitUTF16:
		if r >= 0x10000 {
			return 2
		}
		return 1
	case unitDisplay:
		if r == '\t' {
			return 8 - pos%8
		}
		if isWide(r) {
			return 2
		}
		return 1
	}
	return 1
}

// isWide covers the East Asian wide and emoji blocks that gcc counts as two
// display columns; it is deliberately coarse.
func isWide(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x115F,
		r >= 0x2E80 && r <= 0xA4CF,
		r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0xFE30 && r <= 0xFE4F,
		r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F300 && r <= 0x1F64F,
		r >= 0x1F900 && r <= 0x1F9FF,
		r >= 0x20000 && r <= 0x3FFFD:
		return true
	}
	return false
}
