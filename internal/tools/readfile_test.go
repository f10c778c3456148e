package tools

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadFile(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	files := map[string]string{
		"a.go":        "package a\n\nfunc A() {}\n",
		"crlf.txt":    "one\r\ntwo\r\n",
		"nonl.txt":    "x\ny",
		"empty.txt":   "",
		"long.txt":    long.String(),
		"huge.txt":    strings.Repeat("x", 300<<10) + "\nsecond\n",
		"hugeé.txt":   strings.Repeat("é", 150<<10) + "\n", // the cap falls inside an é
		"bin.dat":     "abc\x00def",
		"latin1.txt":  "caf\xe9\n",
		".env":        "KEY=1",
		"dir/f.txt":   "f\n",
		"uni/ü.txt":   "ünï\n",
		"sub/key.pem": "-----BEGIN",
	}
	ws := newDisk(t, files)
	rf := toolNamed(t, ws, Options{}, "read_file")
	tests := []struct {
		args    string
		want    []string
		notWant []string
		err     string
	}{
		{args: `{"path":"a.go"}`, want: []string{"1\tpackage a\n2\t\n3\tfunc A() {}\n"}, notWant: []string{"file has"}},
		{args: `{"path":"./dir/../a.go","offset":3}`, want: []string{"3\tfunc A() {}\n", "file has 3 lines; showing 3–3; use offset/limit"}, notWant: []string{"package"}},
		{args: `{"path":"crlf.txt"}`, want: []string{"1\tone\n2\ttwo\n"}, notWant: []string{"\r"}},
		{args: `{"path":"nonl.txt"}`, want: []string{"2\ty\n"}},
		{args: `{"path":"empty.txt"}`, want: []string{"empty.txt is empty"}},
		{args: `{"path":"long.txt"}`, want: []string{"2000\tline 2000\n", "file has 2500 lines; showing 1–2000"}, notWant: []string{"line 2001"}},
		{args: `{"path":"long.txt","offset":2490,"limit":5}`, want: []string{"2490\tline 2490\n", "2494\tline 2494\n[file has 2500 lines; showing 2490–2494"}, notWant: []string{"2495"}},
		{args: `{"path":"long.txt","offset":3000}`, want: []string{"has 2500 lines; offset 3000 is past the end"}},
		{args: `{"path":"huge.txt"}`, want: []string{"[line 1 is 307200 bytes; cut at", "showing 1–1"}, notWant: []string{"second"}},
		{args: `{"path":"uni/ü.txt"}`, want: []string{"ünï"}},
		{args: `{"path":"hugeé.txt"}`, want: []string{"[line 1 is 307200 bytes; cut at 262144]"}},
		{args: `{"path":"bin.dat"}`, err: "bin.dat is a binary file"},
		{args: `{"path":"latin1.txt"}`, err: "binary"},
		{args: `{"path":".env"}`, err: "secret"},
		{args: `{"path":"sub/key.pem"}`, err: "secret"},
		{args: `{"path":"../etc/passwd"}`, err: "path ../etc/passwd is outside the workspace"},
		{args: `{"path":"missing.go"}`, err: "file missing.go does not exist"},
		{args: `{"path":"dir"}`, err: "dir is a directory; use list_files"},
		{args: `{"path":"a.go","offset":0}`, err: `field "offset" must be an integer of at least 1, got 0`},
		{args: `{"path":"a.go","limit":"ten"}`, err: `field "limit" must be an integer`},
		{args: `{"file":"a.go"}`, err: `unknown field(s) file`},
		{args: `{}`, err: `missing required field "path"`},
		{args: `{"path":`, err: `not valid JSON`},
		{args: `["a.go"]`, err: `must be a JSON object`},
		{args: `{"path":"a.go","offset":2.0,"limit":null}`, want: []string{"2\t\n"}},
	}
	for _, tt := range tests {
		res, err := call(t, rf, tt.args)
		if tt.err != "" {
			if err == nil {
				t.Errorf("%s: no error; output %q", tt.args, res.Output)
				continue
			}
			wantContains(t, tt.args+" error", err.Error(), tt.err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		wantContains(t, tt.args, res.Output, tt.want...)
		if !utf8.ValidString(res.Output) {
			t.Errorf("%s: output cuts a character", tt.args)
		}
		for _, nw := range tt.notWant {
			if strings.Contains(res.Output, nw) {
				t.Errorf("%s: output contains %q", tt.args, nw)
			}
		}
		if len(res.Output) > 256<<10+200 {
			t.Errorf("%s: output is %d bytes, over the cap", tt.args, len(res.Output))
		}
	}
}

func TestReadFileSchemaErrorShowsSchema(t *testing.T) {
	ws := newDisk(t, nil)
	_, err := call(t, toolNamed(t, ws, Options{}, "read_file"), `{"path":3}`)
	if err == nil {
		t.Fatal("no error")
	}
	wantContains(t, "error", err.Error(), `field "path" must be a string`, `"additionalProperties":false`, `"required":["path"]`)
}

func TestReadFilePrefersBuffer(t *testing.T) {
	disk := newDisk(t, map[string]string{"a.go": "on disk\n"})
	ws := &bufferWS{DiskWorkspace: disk, bufs: map[string]string{"a.go": "in the buffer\n", "unsaved.go": "new\n"}}
	rf := toolNamed(t, ws, Options{}, "read_file")
	for path, want := range map[string]string{"a.go": "in the buffer", "unsaved.go": "new"} {
		res, err := call(t, rf, map[string]any{"path": path})
		if err != nil {
			t.Fatal(err)
		}
		wantContains(t, path, res.Output, want)
	}
}
