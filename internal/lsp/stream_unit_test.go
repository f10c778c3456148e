package lsp

import (
	"context"
	"errors"
	"io"
	"testing"

	"go.uber.org/zap"
)

// frames is a frameStream reading scripted frames and keeping what is
// written back.
type frames struct {
	in      [][]byte
	written []string
}

func (f *frames) ReadFrame(context.Context) ([]byte, int64, error) {
	if len(f.in) == 0 {
		return nil, 0, io.EOF
	}
	b := f.in[0]
	f.in = f.in[1:]
	return b, int64(len(b)), nil
}

func (f *frames) WriteFrame(_ context.Context, data []byte) (int64, error) {
	f.written = append(f.written, string(data))
	return int64(len(data)), nil
}

func (f *frames) Close() error { return nil }

// A frame that is not JSON gets a parse error, one that is JSON but no
// message an invalid-request error, both with id null; reading goes on to
// the next good message. Batches pass through whole.
func TestTolerantStream(t *testing.T) {
	good := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	batch := ` [{"jsonrpc":"2.0","method":"x"}]`
	f := &frames{in: [][]byte{[]byte("not json"), []byte(`{"jsonrpc":"2.0","id":{},"method":"x"}`), []byte(`{"jsonrpc":"2.0","method":5}`), []byte(good), []byte(batch)}}
	s := &tolerantStream{fs: f, log: zap.NewNop()}
	got, _, err := s.ReadFrame(context.Background())
	if err != nil || string(got) != good {
		t.Fatalf("ReadFrame = %q, %v", got, err)
	}
	if len(f.written) != 3 || f.written[0] != string(parseError) || f.written[1] != string(invalidRequest) || f.written[2] != string(invalidRequest) {
		t.Errorf("answers %q", f.written)
	}
	if got, _, err := s.ReadFrame(context.Background()); err != nil || string(got) != batch {
		t.Errorf("batch: %q, %v", got, err)
	}
	if _, _, err := s.ReadFrame(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("the end: %v", err)
	}
	for in, want := range map[string]bool{"[1]": true, " \n\t[": true, "{}": false, "": false, "  x": false} {
		if isBatch([]byte(in)) != want {
			t.Errorf("isBatch(%q) = %v", in, !want)
		}
	}
}
