package edits

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestCheckText(t *testing.T) {
	nulLate := append(bytes.Repeat([]byte("a"), binarySniffLen), 0)
	for _, tc := range []struct {
		name    string
		b       []byte
		max     int
		wantErr error
		detail  string
	}{
		{"empty", nil, 0, nil, ""},
		{"ascii", []byte("package main\n"), 0, nil, ""},
		{"utf-8 with BOM, CJK and emoji", []byte("\ufeff中文 😀\r\n"), 0, nil, ""},
		{"exactly at the limit", []byte("12345"), 5, nil, ""},
		{"over the limit", []byte("123456"), 5, ErrTooLarge, "6 bytes, limit 5"},
		{"over the default limit", bytes.Repeat([]byte("x"), DefaultMaxSize+1), 0, ErrTooLarge, "limit 2097152"},
		{"NUL byte", []byte("ELF\x00\x01"), 0, ErrBinary, "NUL byte at offset 3"},
		{"NUL after the sniffed prefix is not binary", nulLate, 0, nil, ""},
		{"latin-1", []byte("caf\xe9\n"), 0, ErrBinary, "invalid UTF-8 at offset 3"},
		{"truncated sequence", []byte("ok \xe4\xb8"), 0, ErrBinary, "invalid UTF-8 at offset 3"},
		{"UTF-16 surrogate encoded in UTF-8", []byte("a\xed\xa0\x80"), 0, ErrBinary, "offset 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckText(tc.b, tc.max)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("CheckText = %v, want %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("error %q does not say %q", err, tc.detail)
			}
		})
	}
}
