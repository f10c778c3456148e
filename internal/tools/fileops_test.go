package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDeleteAndMoveFile(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"victim.txt": "keep\n"})
	ws := newDisk(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "dir/x.txt": "x\n", ".git/config": "[core]\n", ".agentls.json": "{}"})
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "out")); err != nil {
		t.Fatal(err)
	}
	o := Options{}
	del := toolNamed(t, ws, o, "delete_file")
	mv := toolNamed(t, ws, o, "move_file")
	tests := []struct {
		tool, args, out, err string
	}{
		{"delete_file", `{"path":"a.txt"}`, "deleted a.txt", ""},
		{"delete_file", `{"path":"a.txt"}`, "", "a.txt does not exist"},
		{"delete_file", `{"path":"dir"}`, "", "dir is a directory; delete_file deletes files only"},
		{"delete_file", `{"path":"out/victim.txt"}`, "", "outside the workspace"},
		{"delete_file", `{"path":"../x"}`, "", "outside the workspace"},
		{"delete_file", `{"path":".git/config"}`, "", "inside .git"},
		{"delete_file", `{"path":".agentls.json"}`, "", "explicit approval"},
		{"move_file", `{"from":"b.txt","to":"new/c.txt"}`, "moved b.txt to new/c.txt", ""},
		{"move_file", `{"from":"new/c.txt","to":"dir/x.txt"}`, "", "dir/x.txt already exists"},
		{"move_file", `{"from":"new/c.txt","to":"out/c.txt"}`, "", "outside the workspace"},
		{"move_file", `{"from":"out/victim.txt","to":"stolen.txt"}`, "", "outside the workspace"},
		{"move_file", `{"from":"new/c.txt","to":".vscode/tasks.json"}`, "", "explicit approval"},
	}
	for _, tt := range tests {
		tl := del
		if tt.tool == "move_file" {
			tl = mv
		}
		res, err := tl.Run(context.Background(), json.RawMessage(tt.args))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s %s: %v", tt.tool, tt.args, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s %s: error %v, want %q", tt.tool, tt.args, err, tt.err)
		case tt.err == "" && res.Output != tt.out:
			t.Errorf("%s %s: %q, want %q", tt.tool, tt.args, res.Output, tt.out)
		}
	}
	for rel, want := range map[string]bool{"a.txt": false, "b.txt": false, "new/c.txt": true, "dir/x.txt": true, ".git/config": true, ".agentls.json": true, "stolen.txt": false} {
		if _, ok := readDisk(t, ws, rel); ok != want {
			t.Errorf("%s exists = %v, want %v", rel, ok, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "victim.txt")); err != nil || string(b) != "keep\n" {
		t.Errorf("the file outside was touched: %q %v", b, err)
	}
}
