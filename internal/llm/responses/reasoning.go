package responses

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Reasoning items are kept and sent back so a reasoning model continues
// its chain of thought across tool calls instead of starting over. With
// store false the server keeps nothing, so the request asks for the
// items' encrypted content (include reasoning.encrypted_content) and the
// next request replays them verbatim, before the calls they preceded.
//
// go-openai decodes stream events into types that drop encrypted_content
// (and a custom tool call's input), so the reasoning items are taken from
// the raw stream: the transport copies each response.output_item.done event
// of a reasoning item (or a custom tool call) to the request's collector as
// the body is read.

// IsReasoningModel reports whether model is one of OpenAI's reasoning
// families (o1, o3, o4-mini…, gpt-5…, the codex models).
func IsReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9' {
		return true
	}
	return strings.HasPrefix(m, "gpt-5") || strings.Contains(m, "codex")
}

type collectorKey struct{}

// collector gathers the reasoning items of one response, in order.
type collector struct {
	mu    sync.Mutex
	items []json.RawMessage
	// custom holds finished custom tool calls' input by call_id.
	custom map[string]string
}

func (c *collector) addCustom(callID, input string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.custom == nil {
		c.custom = map[string]string{}
	}
	c.custom[callID] = input
}

func (c *collector) customInputs() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.custom
}

func (c *collector) add(item json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items = append(c.items, item)
}

func (c *collector) taken() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items
}

// reasoningTransport wraps the backend's transport: a request whose
// context carries a collector gets a body that feeds it.
type reasoningTransport struct{ base http.RoundTripper }

func (t reasoningTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	if c, ok := req.Context().Value(collectorKey{}).(*collector); ok {
		resp.Body = &sseTap{rc: resp.Body, c: c}
	}
	return resp, err
}

// sseTap passes the body through unchanged and looks at each complete
// line of it for reasoning items.
type sseTap struct {
	rc   io.ReadCloser
	c    *collector
	line []byte
}

// maxTapLine bounds one buffered event line (encrypted reasoning is a few
// KB to a few hundred); longer lines are passed through unexamined.
const maxTapLine = 8 << 20

func (s *sseTap) Read(p []byte) (int, error) {
	n, err := s.rc.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if len(s.line)+len(data) <= maxTapLine {
				s.line = append(s.line, data...)
			} else {
				s.line = s.line[:0]
			}
			break
		}
		if len(s.line)+i <= maxTapLine {
			s.line = append(s.line, data[:i]...)
			s.examine(s.line)
		}
		s.line = s.line[:0]
		data = data[i+1:]
	}
	return n, err
}

func (s *sseTap) examine(line []byte) {
	payload, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
	if !ok || !bytes.Contains(payload, []byte(`"reasoning"`)) && !bytes.Contains(payload, []byte(`"custom_tool_call"`)) {
		return
	}
	var ev struct {
		Type string          `json:"type"`
		Item json.RawMessage `json:"item"`
	}
	if json.Unmarshal(bytes.TrimSpace(payload), &ev) != nil || ev.Type != "response.output_item.done" {
		return
	}
	var head struct {
		Type   string  `json:"type"`
		CallID string  `json:"call_id"`
		Input  *string `json:"input"`
	}
	if json.Unmarshal(ev.Item, &head) != nil {
		return
	}
	switch {
	case head.Type == "reasoning":
		s.c.add(bytes.Clone(ev.Item))
	case head.Type == "custom_tool_call" && head.Input != nil:
		// go-openai's item has no input field: a custom call's text is
		// taken from here.
		s.c.addCustom(head.CallID, *head.Input)
	}
}

func (s *sseTap) Close() error { return s.rc.Close() }

// withCollector returns ctx carrying a new collector.
func withCollector(ctx context.Context) (context.Context, *collector) {
	c := &collector{}
	return context.WithValue(ctx, collectorKey{}, c), c
}

// replayItem makes a stored reasoning item fit for input: the server
// rejects output-only fields such as status on input items.
func replayItem(item json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil {
		return item
	}
	delete(m, "status")
	out, err := json.Marshal(m)
	if err != nil {
		return item
	}
	return out
}
