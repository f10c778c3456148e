package chat

// The request is sent and its event stream read here rather than through
// go-openai's client: its stream reader matches two regular expressions
// against every line and its client clones each request to swap in the
// body built in body.go. What a caller sees is unchanged: the same headers
// and URL, *openai.APIError and *openai.RequestError for failed statuses
// and for error events, go-openai's chunk type, and io.EOF at [DONE] or at
// the end of the body.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// maxErrorBody bounds what is kept of lines that are neither events nor
// comments (a JSON error some servers send in a 200 without "data:").
const maxErrorBody = 64 << 10

// maxEmptyLines is how many lines without an event a stream may send in a
// row. Keep-alive comments during long prompt processing count, so it is
// large; dead streams are caught by the idle timer.
const maxEmptyLines = 1 << 20

// post sends body to the chat completions endpoint and returns the
// response when its status is a success, or the error go-openai returns
// for a failed status.
func (o *OpenAI) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.cfg.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"text/event-stream"}
	h["Cache-Control"] = []string{"no-cache"}
	h["Connection"] = []string{"keep-alive"}
	if o.auth != "" {
		h["Authorization"] = []string{o.auth}
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest {
		defer resp.Body.Close()
		return nil, statusError(resp)
	}
	return resp, nil
}

// statusError reads a failed response as go-openai does: an *APIError when
// the body is OpenAI's error document, a *RequestError otherwise.
func statusError(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("error, reading response body: %w", err)
	}
	var er openai.ErrorResponse
	err = json.Unmarshal(body, &er)
	if err != nil || er.Error == nil {
		re := &openai.RequestError{HTTPStatus: resp.Status, HTTPStatusCode: resp.StatusCode, Err: err, Body: body}
		if er.Error != nil {
			re.Err = er.Error
		}
		return re
	}
	er.Error.HTTPStatus = resp.Status
	er.Error.HTTPStatusCode = resp.StatusCode
	return er.Error
}

// sseReader reads the data of a chat completions event stream.
type sseReader struct {
	r       *bufio.Reader
	long    []byte // a line longer than r's buffer, assembled
	other   []byte // lines that are neither events nor comments
	done    bool
	empties int
}

// sseBuffers keeps the readers' 16 KiB buffers from stream to stream: a
// new one each turn was a fifth of the bytes a 100-turn task allocated.
var sseBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

func newSSEReader(body io.Reader) *sseReader {
	r := sseBuffers.Get().(*bufio.Reader)
	r.Reset(body)
	return &sseReader{r: r}
}

// release returns the buffer; the data next returned is invalid after it.
func (s *sseReader) release() {
	if s.r != nil {
		s.r.Reset(nil)
		sseBuffers.Put(s.r)
		s.r = nil
	}
}

// next returns the data of the next event, io.EOF after [DONE] or at the
// end of the body, or the error the server sent. The data is valid until
// the next call.
func (s *sseReader) next() ([]byte, error) {
	if s.done {
		return nil, io.EOF
	}
	for {
		line, err := s.line()
		if err != nil {
			// An error document the server sent instead of events.
			var er openai.ErrorResponse
			if len(s.other) > 0 && json.Unmarshal(s.other, &er) == nil && er.Error != nil {
				return nil, fmt.Errorf("error, %w", er.Error)
			}
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = bytes.TrimLeft(data, " \t")
			if string(data) == "[DONE]" {
				s.done = true
				return nil, io.EOF
			}
			if bytes.HasPrefix(data, []byte(`{"error":`)) {
				var er openai.ErrorResponse
				if err := json.Unmarshal(data, &er); err != nil {
					return nil, err
				}
				if er.Error != nil {
					return nil, fmt.Errorf("error, %w", er.Error)
				}
			}
			s.empties = 0
			return data, nil
		}
		// Blank lines end events; comments (keep-alives) and the other
		// fields (event:, id:, retry:) carry nothing a chat stream needs.
		if s.empties++; s.empties > maxEmptyLines {
			return nil, openai.ErrTooManyEmptyStreamMessages
		}
		if len(line) == 0 || line[0] == ':' || bytes.HasPrefix(line, []byte("event:")) ||
			bytes.HasPrefix(line, []byte("id:")) || bytes.HasPrefix(line, []byte("retry:")) {
			continue
		}
		if len(s.other)+len(line) <= maxErrorBody {
			s.other = append(s.other, line...)
		}
	}
}

// line returns the next whole line; a last line without its newline is
// dropped, as a cut stream's half event must be.
func (s *sseReader) line() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	s.long = append(s.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = s.r.ReadSlice('\n')
		s.long = append(s.long, line...)
	}
	return s.long, err
}
