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
// error, and one that is JSON but no valid message (an object as its id, a
// method that is not a string) with an invalid-request error, both with id
// null, and reads on, as the JSON-RPC spec asks: jsonrpc2 v1 ends the
// whole connection on either, and one bad message must not cost the user
// their running tasks.
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

var (
	parseError     = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not valid JSON"}}`)
	invalidRequest = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the message is not a valid JSON-RPC request or response"}}`)
)

func (t *tolerantStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		frame, n, err := t.fs.ReadFrame(ctx)
		if err != nil {
			return frame, n, err
		}
		answer := parseError
		if json.Valid(frame) {
			// A batch is the connection's to take apart (it answers bad
			// members itself); a single message must decode as one.
			if isBatch(frame) {
				return frame, n, nil
			}
			if _, derr := jsonrpc2.DecodeMessage(frame); derr == nil {
				return frame, n, nil
			}
			answer = invalidRequest
			t.log.Warn("dropped a message that is not a valid JSON-RPC message", zap.Int("bytes", len(frame)))
		} else {
			t.log.Warn("dropped a message that is not JSON", zap.Int("bytes", len(frame)))
		}
		if _, err := t.fs.WriteFrame(ctx, answer); err != nil {
			return nil, 0, err
		}
	}
}

// isBatch reports whether a JSON text is an array.
func isBatch(frame []byte) bool {
	for _, c := range frame {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '['
	}
	return false
}

func (t *tolerantStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return t.fs.WriteFrame(ctx, data)
}
