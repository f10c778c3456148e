package chat

import (
	"errors"
	"io"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// The event reader keeps what go-openai's did: data of each event,
// comments and other fields skipped, [DONE] and the end of the body as
// io.EOF, a cut last line dropped, error events and error documents as
// *openai.APIError; and it reads lines longer than its buffer whole.
func TestSSEReader(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", 40<<10) + `"}`
	tests := []struct {
		name   string
		stream string
		want   []string
		errMsg string // the error after the events; "" is io.EOF
	}{
		{name: "events and keep-alives", stream: ": ping\n\ndata: {\"a\":1}\n\nevent: chunk\nid: 7\nretry: 10\n:\ndata:{\"a\":2}\r\n\r\ndata: [DONE]\n\ndata: {\"after\":1}\n",
			want: []string{`{"a":1}`, `{"a":2}`}},
		{name: "long line", stream: "data: " + long + "\n\n", want: []string{long}},
		{name: "cut last line", stream: "data: {\"a\":1}\n\ndata: {\"a\":", want: []string{`{"a":1}`}},
		{name: "error event", stream: "data: {\"a\":1}\n\ndata: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n",
			want: []string{`{"a":1}`}, errMsg: "overloaded"},
		{name: "error document", stream: "{\"error\": {\n\"message\": \"bad request\"}}\n", errMsg: "bad request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tt.stream))
			var got []string
			var err error
			for {
				var data []byte
				if data, err = r.next(); err != nil {
					break
				}
				got = append(got, string(data))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("events %q, want %q", got, tt.want)
			}
			if tt.errMsg == "" {
				if err != io.EOF {
					t.Errorf("err = %v, want io.EOF", err)
				}
				return
			}
			var apiErr *openai.APIError
			if !errors.As(err, &apiErr) || apiErr.Message != tt.errMsg {
				t.Errorf("err = %v (%T), want an APIError %q", err, err, tt.errMsg)
			}
		})
	}
}
