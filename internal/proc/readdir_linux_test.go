package proc

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The walk reads directories with getdents64 itself: every entry of a
// directory larger than its buffer (several calls) comes out once, with
// its type, as os.ReadDir sees them; an error from the callback stops it.
func TestReadDirSeesEveryEntry(t *testing.T) {
	dir := t.TempDir()
	want := map[string]uint8{}
	long := strings.Repeat("n", 120)
	for i := range 1500 { // about 200 KB of entries: several buffers
		name := long + strconv.Itoa(i)
		switch i % 3 {
		case 0:
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			want[name] = unix.DT_REG
		case 1:
			if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
				t.Fatal(err)
			}
			want[name] = unix.DT_DIR
		case 2:
			if err := os.Symlink("nowhere", filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			want[name] = unix.DT_LNK
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	got := map[string]uint8{}
	err = readDir(fd, make([]byte, direntBuf), func(name string, typ uint8) error {
		if _, dup := got[name]; dup {
			t.Errorf("%s twice", name)
		}
		got[name] = typ
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d entries, want %d", len(got), len(want))
	}
	for name, typ := range want {
		if got[name] != typ && got[name] != unix.DT_UNKNOWN {
			t.Errorf("%s: type %d, want %d", name, got[name], typ)
		}
	}
	// The same names as the standard library's.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var std []string
	for _, e := range ents {
		std = append(std, e.Name())
	}
	var ours []string
	for n := range got {
		ours = append(ours, n)
	}
	slices.Sort(ours)
	if !slices.Equal(std, ours) {
		t.Errorf("names differ from os.ReadDir's")
	}

	// An error stops the reading at once.
	stop := errors.New("stop")
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = readDir(fd, make([]byte, direntBuf), func(string, uint8) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("after an error: %v, %d calls", err, n)
	}

	// A directory that cannot be read says so, so that the walk keeps no
	// record of entries it never saw (a file is what getdents64 refuses
	// here: ENOTDIR).
	fp := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(fp, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := unix.Open(fp, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(file)
	if err := readDir(file, make([]byte, direntBuf), func(string, uint8) error { return nil }); !errors.Is(err, errUnread) {
		t.Errorf("reading a file as a directory: %v, want errUnread", err)
	}
}
