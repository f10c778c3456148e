package jsonscan

import (
	"encoding/json"
	"testing"
)

var strCorpus = []string{
	`"plain"`, `"a\nb\t\"q\"\\ \/"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`,
	`"héllo ✓"`, "\"bad \xff\"", "\"ctl \x01\"", `"\x"`, `"\u12"`, `"unterminated`, `""`,
}

// What Str takes, it unquotes as encoding/json does.
func TestStrMatchesEncodingJSON(t *testing.T) {
	for _, in := range strCorpus {
		checkStr(t, []byte(in))
	}
}

func FuzzStr(f *testing.F) {
	for _, in := range strCorpus {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkStr(t, in) })
}

func checkStr(t *testing.T, in []byte) {
	t.Helper()
	s := New(in)
	got, ok := s.Str()
	if !ok || !s.End() {
		return
	}
	var want string
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatalf("%q: Str took what encoding/json rejects: %v", in, err)
	}
	if got != want {
		t.Fatalf("%q: Str %q, encoding/json %q", in, got, want)
	}
}

// Skip accepts only JSON: whatever it steps over whole, encoding/json
// takes.
func FuzzSkip(f *testing.F) {
	for _, in := range []string{`{"a":[1,-2.5e3,true,null,{"b":"\u00e9"}]}`, `[]`, `01`, `1.`, `"\x"`, `{"a":}`, `nul`} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := New(in)
		if s.Skip() && s.End() && !json.Valid(in) {
			t.Fatalf("%q: Skip took what is not JSON", in)
		}
	})
}
