package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// lineCol turns a byte offset of data into a 1-based line and column (in
// characters), as editors count them.
func lineCol(data []byte, off int64) (int, int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, len([]rune(string(before[start:]))) + 1
}

// syntaxProblem says where a file that is not a JSON object goes wrong.
func syntaxProblem(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		l, c := lineCol(data, se.Offset-1)
		return fmt.Sprintf("line %d, column %d: not valid JSON: %v", l, c, err)
	case errors.As(err, &te):
		// The whole file is some other JSON value: it starts where its
		// first character is.
		off := int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
		l, c := lineCol(data, off)
		return fmt.Sprintf("line %d, column %d: the file holds a JSON %s; settings are one JSON object, e.g. {\"llm\": {\"model\": \"…\"}}", l, c, te.Value)
	}
	return "not a JSON object: " + err.Error()
}

// keyPosition finds where a dotted key's last part is written in data
// ("maxStep" of "agent.maxStep" or of {"agent": {"maxStep": …}}): the
// first quoted occurrence followed by a colon. ok is false when it cannot
// be found (escaped spellings).
func keyPosition(data []byte, key string) (line, col int, ok bool) {
	cands := []string{key}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		cands = append(cands, key[i+1:])
	}
	for _, k := range cands {
		q := []byte(`"` + k + `"`)
		for from := 0; ; {
			i := bytes.Index(data[from:], q)
			if i < 0 {
				break
			}
			at := from + i
			rest := bytes.TrimLeft(data[at+len(q):], " \t\r\n")
			if len(rest) > 0 && rest[0] == ':' {
				l, c := lineCol(data, int64(at))
				return l, c, true
			}
			from = at + len(q)
		}
	}
	return 0, 0, false
}

// suggest returns the known key nearest to an unknown one: the same key
// in other case, the key whose last part it spells ("maxSteps" →
// "agent.maxSteps"), or one a few edits away; "" when none is close.
func suggest(unknown string) string {
	lu := strings.ToLower(unknown)
	last := lu
	if i := strings.LastIndexByte(lu, '.'); i >= 0 {
		last = lu[i+1:]
	}
	best, bestD := "", 0
	for _, k := range Keys() {
		lk := strings.ToLower(k)
		if lk == lu {
			return k
		}
		kl := lk
		if i := strings.LastIndexByte(lk, '.'); i >= 0 {
			kl = lk[i+1:]
		}
		d := distance(lu, lk)
		if kl == lu || (kl == last && strings.Contains(lu, ".")) {
			d = min(d, 1)
		}
		if best == "" || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD <= max(2, len(unknown)/4) {
		return best
	}
	return ""
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// unknownMsg is the problem text of an unknown key written in data.
func unknownMsg(data []byte, key string) string {
	msg := "unknown setting"
	if s := suggest(key); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		msg += " (known: " + strings.Join(Keys(), ", ") + ")"
	}
	if l, c, ok := keyPosition(data, key); ok {
		msg = fmt.Sprintf("line %d, column %d: %s", l, c, msg)
	}
	return msg
}
