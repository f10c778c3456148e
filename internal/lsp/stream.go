package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// frameStream is the frame-level side of jsonrpc2's header stream, which
// jsonrpc2.Conn uses when the stream has it.
type frameStream interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// tolerantStream answers a frame that is not JSON with a JSON-RPC parse
// error and reads on, as the JSON-RPC spec asks: jsonrpc2 v1 ends the
// whole connection on one, and an editor's one bad message must not cost
// the user their running tasks.
type tolerantStream struct {
	jsonrpc2.Stream
	fs  frameStream
	log *zap.Logger
}

func newTolerantStream(s jsonrpc2.Stream, log *zap.Logger) jsonrpc2.Stream {
	fs, ok := s.(frameStream)
	if !ok {
		return s
	}
	return &tolerantStream{Stream: s, fs: fs, log: log}
}

var parseError = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not valid JSON"}}`)

func (t *tolerantStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		frame, n, err := t.fs.ReadFrame(ctx)
		if err != nil || json.Valid(frame) {
			return frame, n, err
		}
		t.log.Warn("dropped a message that is not JSON", zap.Int("bytes", len(frame)))
		if _, err := t.fs.WriteFrame(ctx, parseError); err != nil {
			return nil, 0, err
		}
	}
}

func (t *tolerantStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return t.fs.WriteFrame(ctx, data)
}
