package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// appender appends JSON lines to a file that other processes may append to
// as well: each record is one write on an O_APPEND descriptor, so records
// of two writers never interleave within a line.
type appender struct {
	f      *os.File
	redact func(string) string
}

// openAppend opens path for appending. A file whose last line was torn by a
// crash gets a newline first, so the next record starts on its own line and
// only the torn line is lost.
func openAppend(path string, redact func(string) string) (*appender, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if err := endLine(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return &appender{f: f, redact: redact}, nil
}

// endLine writes "\n" to f unless path is empty or ends with one.
func endLine(f *os.File, path string) error {
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	fi, err := r.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	_, err = f.Write([]byte("\n"))
	return err
}

// append writes the records, one line each, in one write.
func (a *appender) append(recs ...any) error {
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode record: %w", err)
		}
		if a.redact != nil {
			b = []byte(a.redact(string(b)))
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	_, err := a.f.Write(buf.Bytes())
	return err
}

func (a *appender) close() error { return a.f.Close() }

// readLines calls fn with each line of the file that decodes as JSON into a
// fresh T. Lines that do not decode are skipped and described in warnings:
// a torn last line is what a crash leaves, never an error.
func readLines[T any](path string, fn func(T)) (warnings []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return warnings, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return warnings, fmt.Errorf("read %s: %w", path, err)
		}
		torn := !bytes.HasSuffix(line, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			var v T
			if derr := json.Unmarshal(line, &v); derr != nil {
				if torn {
					warnings = append(warnings, fmt.Sprintf("%s: line %d is incomplete (the writer was interrupted); skipped", path, n))
				} else {
					warnings = append(warnings, fmt.Sprintf("%s: line %d is not a valid record (%v); skipped", path, n, derr))
				}
			} else {
				fn(v)
			}
		}
		if errors.Is(err, io.EOF) {
			return warnings, nil
		}
	}
}

// writeFileAtomic replaces path with data through a synced temporary file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
