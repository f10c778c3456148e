package tools

import (
	"encoding/json"
	"reflect"
	"testing"
)

type fastArgs struct {
	S string `json:"s" jsonschema:"a string"`
	N int    `json:"n,omitempty" minimum:"1" maximum:"10"`
	B bool   `json:"b,omitempty"`
	M int64  `json:"m,omitempty"`
}

var fastCorpus = []string{
	`{"s":"x"}`,
	`{"s":"x","n":3,"b":true,"m":-7}`,
	` { "s" : "a\nb \"q\" \u00e9 \ud83d\ude00" , "b" : false } `,
	`{"s":"héllo ✓"}`,
	`{"n":3,"s":""}`,
	`{"s":"x","n":0}`,
	`{"s":"x","n":11}`,
	`{"s":"x","n":10}`,
	`{"s":"x","n":1.0}`,
	`{"s":"x","n":1e1}`,
	`{"s":"x","n":"3"}`,
	`{"s":"x","n":null}`,
	`{"s":null}`,
	`{"s":1}`,
	`{"s":"x","b":"true"}`,
	`{"s":"x","z":1}`,
	`{"S":"x"}`,
	`{"s":"x","s":"y"}`,
	`{"s":"x"} trailing`,
	`{"s":"x"`,
	`{}`,
	``,
	`null`,
	`[]`,
	`"s"`,
	"{\"s\":\"bad \xff\"}",
	"{\"s\":\"ctl \x01\"}",
	`{"s":"x","m":99999999999999999999}`,
	`{"s":"x","m":-0}`,
	`{"s":"x","m":01}`,
	`{"s":"x","m":9223372036854775807}`,
	`{"s":"\ud800"}`,
	`{"s":"\ud800\u0041"}`,
	`{"s\u0073":"x"}`,
}

// A call the fast path decodes is one the library validates and decodes to
// the same value; and the everyday calls do take the fast path.
func TestFastParseAgreesWithLibrary(t *testing.T) {
	decl := declare[fastArgs](nil)
	fast := 0
	for _, in := range fastCorpus {
		if checkFast(t, decl, []byte(in)) {
			fast++
		}
	}
	if fast < 8 {
		t.Errorf("only %d of the corpus took the fast path", fast)
	}
	// The real tools' arguments, as models send them.
	if !checkFast(t, editFileDecl(), []byte(`{"path":"src/a.go","old_string":"\tx := 1\n","new_string":"\tx := 2\n"}`)) {
		t.Error("an ordinary edit_file call missed the fast path")
	}
	if !checkFast(t, readFileDecl(), []byte(`{"path":"README.md","offset":10,"limit":20}`)) {
		t.Error("an ordinary read_file call missed the fast path")
	}
}

func FuzzFastParse(f *testing.F) {
	for _, in := range fastCorpus {
		f.Add([]byte(in))
	}
	decl := declare[fastArgs](nil)
	f.Fuzz(func(t *testing.T, in []byte) { checkFast(t, decl, in) })
}

// checkFast reports whether the fast path took in, failing t when the
// library disagrees with what it decoded.
func checkFast[T any](t *testing.T, a *args[T], in []byte) bool {
	t.Helper()
	got, ok := a.fast(in)
	if !ok {
		return false
	}
	fields, err := a.check(in)
	if err != nil {
		t.Fatalf("%q: the fast path took what the library rejects: %v", in, err)
	}
	var want T
	if err := json.Unmarshal(fields, &want); err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: fast %+v, library %+v", in, got, want)
	}
	return true
}
