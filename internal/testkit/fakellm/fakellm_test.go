package fakellm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// start serves script and closes the server when the test ends.
func start(t *testing.T, script *Script) (*Server, string) {
	t.Helper()
	s := New(script)
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, url
}

const simpleBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// sse is a read SSE body: the data payloads, the comment lines, and the
// error that ended the read (nil after [DONE]).
type sse struct {
	data     []string
	comments int
	done     bool
	err      error
}

func readSSE(r io.Reader) sse {
	var out sse
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			out.err = err
			return out
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
		case strings.HasPrefix(line, ":"):
			out.comments++
		case line == "data: [DONE]":
			out.done = true
			rest, err := io.ReadAll(br)
			if err != nil || len(bytes.TrimSpace(rest)) > 0 {
				out.err = fmt.Errorf("after [DONE]: %q, %v", rest, err)
			}
			return out
		case strings.HasPrefix(line, "data: "):
			out.data = append(out.data, strings.TrimPrefix(line, "data: "))
		default:
			out.err = fmt.Errorf("unexpected SSE line %q", line)
			return out
		}
	}
}

// decoded chunk, generic on purpose: tests check which keys exist.
func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("chunk %q: %v", s, err)
	}
	return m
}

func choiceDelta(t *testing.T, chunk map[string]any) (map[string]any, any) {
	t.Helper()
	choices := chunk["choices"].([]any)
	if len(choices) != 1 {
		t.Fatalf("chunk has %d choices: %v", len(choices), chunk)
	}
	c := choices[0].(map[string]any)
	return c["delta"].(map[string]any), c["finish_reason"]
}

func TestStreamShape(t *testing.T) {
	_, url := start(t, &Script{Turns: []Turn{{
		Text:      "Héllo, wörld",
		ChunkSize: 4,
		ToolCalls: []ToolCall{
			{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.txt"}`},
			{Name: "grep", Arguments: `{"pattern":"x"}`},
		},
		Usage: &Usage{PromptTokens: 10, CompletionTokens: 5},
	}}})
	resp := post(t, url, simpleBody)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	got := readSSE(resp.Body)
	if got.err != nil || !got.done {
		t.Fatalf("stream did not end with [DONE]: %v", got.err)
	}

	first, _ := choiceDelta(t, decode(t, got.data[0]))
	if first["role"] != "assistant" || first["content"] != "" {
		t.Errorf("first delta = %v, want the role preamble", first)
	}
	var text strings.Builder
	type call struct{ id, name, args string }
	var calls []call
	var finish any
	for _, d := range got.data[1 : len(got.data)-1] {
		delta, fr := choiceDelta(t, decode(t, d))
		if fr != nil {
			finish = fr
		}
		if c, ok := delta["content"].(string); ok {
			if len(c) > 4 && len([]rune(c)) > 1 {
				t.Errorf("text delta %q longer than chunkSize", c)
			}
			text.WriteString(c)
		}
		for _, raw := range toSlice(delta["tool_calls"]) {
			tc := raw.(map[string]any)
			fn := tc["function"].(map[string]any)
			idx := int(tc["index"].(float64))
			if id, ok := tc["id"].(string); ok {
				// The first delta of a call: id, type, name, empty arguments.
				if tc["type"] != "function" || fn["name"] == "" || fn["arguments"] != "" {
					t.Errorf("first tool delta %v lacks type/name/empty arguments", tc)
				}
				if idx != len(calls) {
					t.Errorf("call %q on index %d, want %d", id, idx, len(calls))
				}
				calls = append(calls, call{id: id, name: fn["name"].(string)})
				continue
			}
			if _, ok := tc["type"]; ok || fn["name"] != nil {
				t.Errorf("argument fragment %v carries more than index and arguments", tc)
			}
			calls[idx].args += fn["arguments"].(string)
		}
	}
	if text.String() != "Héllo, wörld" {
		t.Errorf("text = %q", text.String())
	}
	want := []call{{"call_a", "read_file", `{"path":"a.txt"}`}, {"call_0_1", "grep", `{"pattern":"x"}`}}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("calls = %v, want %v", calls, want)
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason = %v", finish)
	}
	usage := decode(t, got.data[len(got.data)-1])
	if ch := usage["choices"].([]any); len(ch) != 0 {
		t.Errorf("usage chunk has choices %v", ch)
	}
	u := usage["usage"].(map[string]any)
	if u["prompt_tokens"] != 10.0 || u["completion_tokens"] != 5.0 || u["total_tokens"] != 15.0 {
		t.Errorf("usage = %v", u)
	}
}

func toSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestQuirks(t *testing.T) {
	calls := []ToolCall{{ID: "c1", Name: "a", Arguments: `{"x":1}`}, {ID: "c2", Name: "b", Arguments: `{"y":2}`}}
	tests := []struct {
		quirk      string
		wantIndex  []any // index of each tool delta, nil when absent
		wantFinish string
	}{
		{"", []any{0.0, 0.0, 1.0, 1.0}, "tool_calls"},
		{QuirkOllama, []any{0.0, 0.0, 0.0, 0.0}, "tool_calls"},
		{QuirkNoIndex, []any{nil, nil, nil, nil}, "tool_calls"},
		{QuirkStopWithTools, []any{0.0, 0.0, 1.0, 1.0}, "stop"},
	}
	for _, tt := range tests {
		t.Run("quirk="+tt.quirk, func(t *testing.T) {
			_, url := start(t, &Script{Turns: []Turn{{ToolCalls: calls, ChunkSize: 100, Quirk: tt.quirk}}})
			got := readSSE(post(t, url, simpleBody).Body)
			var idx []any
			var finish any
			for _, d := range got.data {
				c := decode(t, d)
				if len(c["choices"].([]any)) == 0 {
					continue
				}
				delta, fr := choiceDelta(t, c)
				if fr != nil {
					finish = fr
				}
				for _, tc := range toSlice(delta["tool_calls"]) {
					idx = append(idx, tc.(map[string]any)["index"])
				}
			}
			if fmt.Sprint(idx) != fmt.Sprint(tt.wantIndex) || finish != tt.wantFinish {
				t.Errorf("indexes %v finish %v, want %v %v", idx, finish, tt.wantIndex, tt.wantFinish)
			}
		})
	}
}

func TestStreamMisbehaviour(t *testing.T) {
	zero, two := 0, 2
	tests := []struct {
		name         string
		turn         Turn
		wantData     int
		wantComments int
		wantDone     bool
		wantErr      error
	}{
		{"break after headers", Turn{Text: "abc", BreakAfter: &zero}, 0, 0, false, io.ErrUnexpectedEOF},
		{"break after text", Turn{Text: "abcdefghijkl", ChunkSize: 4, BreakAfter: &two}, 2, 0, false, io.ErrUnexpectedEOF},
		{"break past the end", Turn{Text: "ab", BreakAfter: ptr(99)}, 4, 0, false, io.ErrUnexpectedEOF},
		{"end after text", Turn{Text: "abcdefghijkl", ChunkSize: 4, EndAfter: &two}, 2, 0, false, io.EOF},
		{"keep-alive", Turn{Text: "ab", KeepAlive: 400}, 4, 400, true, nil},
		{"stall then go on", Turn{Text: "ab", StallMs: 30}, 4, 0, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, url := start(t, &Script{Turns: []Turn{tt.turn}})
			got := readSSE(post(t, url, simpleBody).Body)
			if len(got.data) != tt.wantData || got.comments != tt.wantComments || got.done != tt.wantDone || !errors.Is(got.err, tt.wantErr) {
				t.Errorf("got %d events, %d comments, done=%v, err=%v; want %d, %d, %v, %v",
					len(got.data), got.comments, got.done, got.err, tt.wantData, tt.wantComments, tt.wantDone, tt.wantErr)
			}
		})
	}
}

func TestStallDelaysTheStream(t *testing.T) {
	_, url := start(t, &Script{Turns: []Turn{{Text: "ab", StallMs: 150}}})
	resp := post(t, url, simpleBody)
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // the role preamble comes at once
		t.Fatal(err)
	}
	began := time.Now()
	got := readSSE(br)
	if !got.done || time.Since(began) < 150*time.Millisecond {
		t.Errorf("rest of the stream took %v (done=%v), want at least the stall", time.Since(began), got.done)
	}
}

func TestReset(t *testing.T) {
	_, url := start(t, &Script{Turns: []Turn{{Reset: true}}})
	req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(simpleBody))
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("got HTTP %d, want a transport error", resp.StatusCode)
	}
}

// errorBody decodes OpenAI's error shape.
func errorBody(t *testing.T, resp *http.Response) (msg, typ string, code any) {
	t.Helper()
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatalf("error body: %v", err)
	}
	return e.Error.Message, e.Error.Type, e.Error.Code
}

func TestErrorReplies(t *testing.T) {
	toolNoContent := `{"model":"m","messages":[{"role":"user","content":"x"},
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1"}]}`
	missingResult := `{"model":"m","messages":[{"role":"user","content":"x"},
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"user","content":"y"}]}`
	tests := []struct {
		name       string
		turns      []Turn
		body       string
		wantStatus int
		wantMsg    string
		wantType   string
		wantRetry  string
	}{
		{"scripted 429", []Turn{{Error: &ErrorReply{Status: 429, Message: "slow down", RetryAfter: "2"}}}, simpleBody, 429, "slow down", "requests", "2"},
		{"scripted 500", []Turn{{Error: &ErrorReply{Status: 500, Message: "boom"}}}, simpleBody, 500, "boom", "server_error", ""},
		{"exhausted", nil, simpleBody, 500, "script exhausted", "server_error", ""},
		{"expect user", []Turn{{Text: "x", Expect: &Expect{LastUserContains: "bye"}}}, simpleBody, 400, `expected the last user message to contain "bye", got "hi"`, "invalid_request_error", ""},
		{"expect tool", []Turn{{Text: "x", Expect: &Expect{LastToolContains: "ok"}}}, simpleBody, 400, "no tool message", "invalid_request_error", ""},
		{"tool without content", []Turn{{Text: "x"}}, toolNoContent, 400, "'messages[2].content'", "invalid_request_error", ""},
		{"missing tool result", []Turn{{Text: "x"}}, missingResult, 400, "c1", "invalid_request_error", ""},
		{"not JSON", []Turn{{Text: "x"}}, `{`, 400, "not valid JSON", "invalid_request_error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, url := start(t, &Script{Turns: tt.turns})
			resp := post(t, url, tt.body)
			msg, typ, _ := errorBody(t, resp)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(msg, tt.wantMsg) || typ != tt.wantType || resp.Header.Get("Retry-After") != tt.wantRetry {
				t.Errorf("got %d %q type %q Retry-After %q; want %d containing %q type %q Retry-After %q",
					resp.StatusCode, msg, typ, resp.Header.Get("Retry-After"), tt.wantStatus, tt.wantMsg, tt.wantType, tt.wantRetry)
			}
		})
	}
}

func TestAPIKeyAndRecording(t *testing.T) {
	s := New(&Script{Turns: []Turn{{Text: "one"}, {Text: "two"}}})
	s.APIKey = "sk-secret-123"
	var lines bytes.Buffer
	s.RequestLog = &lines
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	resp := post(t, url, simpleBody) // no key
	if msg, _, code := errorBody(t, resp); resp.StatusCode != 401 || code != "invalid_api_key" {
		t.Fatalf("no key: %d %q %v", resp.StatusCode, msg, code)
	}
	resp = post(t, url, simpleBody, "Authorization", "Bearer wrong")
	if resp.StatusCode != 401 {
		t.Fatalf("wrong key: %d", resp.StatusCode)
	}
	if got := s.Requests(); len(got) != 0 || s.Pending() != 2 {
		t.Fatalf("rejected requests consumed turns: %v, pending %d", got, s.Pending())
	}
	resp = post(t, url, simpleBody, "Authorization", "Bearer sk-secret-123")
	if got := readSSE(resp.Body); resp.StatusCode != 200 || !got.done {
		t.Fatalf("good key: %d %v", resp.StatusCode, got.err)
	}
	if s.Pending() != 1 {
		t.Errorf("pending = %d, want 1", s.Pending())
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Turn != 0 || reqs[0].Authorization != "Bearer [redacted]" ||
		reqs[0].Body.Model != "m" || reqs[0].Body.Messages[0].Content != "hi" || !reqs[0].Body.StreamOptions.IncludeUsage {
		t.Errorf("recorded %+v", reqs)
	}
	if strings.Contains(lines.String(), "sk-secret") {
		t.Errorf("request log contains the key: %s", lines.String())
	}
	var rec RecordedRequest
	if err := json.Unmarshal(lines.Bytes(), &rec); err != nil || rec.Body.Messages[0].Content != "hi" {
		t.Errorf("request log line %q: %v", lines.String(), err)
	}
}

func TestModelsAndRoutes(t *testing.T) {
	_, url := start(t, &Script{Models: []string{"a", "b"}})
	resp, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) != 2 || list.Data[1].ID != "b" {
		t.Errorf("models: %v %+v", err, list)
	}
	resp, err = http.Post(strings.TrimSuffix(url, "/v1")+"/chat/completions", "application/json", strings.NewReader(simpleBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if msg, _, _ := errorBody(t, resp); resp.StatusCode != 404 || !strings.Contains(msg, "/v1") {
		t.Errorf("wrong path: %d %q", resp.StatusCode, msg)
	}
}

func TestNonStreaming(t *testing.T) {
	_, url := start(t, &Script{Turns: []Turn{
		{Text: "summary"},
		{ToolCalls: []ToolCall{{ID: "c", Name: "f", Arguments: "{}"}}},
	}})
	body := `{"model":"m","messages":[{"role":"user","content":"sum up"}]}`
	for i, want := range []string{
		`"content":"summary"`,
		`"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"`,
	} {
		resp := post(t, url, body)
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(data), want) || !strings.Contains(string(data), `"object":"chat.completion"`) {
			t.Errorf("turn %d: %d %s, want %s", i, resp.StatusCode, data, want)
		}
	}
}

func TestConcurrentRequestsTakeDistinctTurns(t *testing.T) {
	const n = 20
	var turns []Turn
	for i := range n {
		turns = append(turns, Turn{Text: fmt.Sprintf("turn-%d", i), ChunkSize: 3})
	}
	s, url := start(t, &Script{Turns: turns})
	texts := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(simpleBody))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var text strings.Builder
			for _, d := range readSSE(resp.Body).data {
				var c struct {
					Choices []struct{ Delta struct{ Content string } }
				}
				_ = json.Unmarshal([]byte(d), &c)
				for _, ch := range c.Choices {
					text.WriteString(ch.Delta.Content)
				}
			}
			texts <- text.String()
		})
	}
	wg.Wait()
	close(texts)
	seen := map[string]bool{}
	for text := range texts {
		seen[text] = true
	}
	if len(seen) != n || s.Pending() != 0 || len(s.Requests()) != n {
		t.Errorf("%d distinct answers, %d pending, %d recorded; want %d, 0, %d", len(seen), s.Pending(), len(s.Requests()), n, n)
	}
}

func TestCloseEndsStalledStream(t *testing.T) {
	s := New(&Script{Turns: []Turn{{Text: "ab", StallMs: 60_000}}})
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, url, simpleBody)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the stalled stream")
	}
	if got := readSSE(resp.Body); got.done {
		t.Error("stream finished although the server closed mid-stall")
	}
}

func TestSplitUTF8(t *testing.T) {
	tests := []struct {
		in   string
		size int
		want []string
	}{
		{"", 4, nil},
		{"abcdefgh", 3, []string{"abc", "def", "gh"}},
		{"héllo", 2, []string{"h", "é", "ll", "o"}},
		{"😀😀", 3, []string{"😀", "😀"}}, // a rune longer than size stays whole
		{"a😀", 4, []string{"a", "😀"}},
	}
	for _, tt := range tests {
		if got := splitUTF8(tt.in, tt.size); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
			t.Errorf("splitUTF8(%q, %d) = %q, want %q", tt.in, tt.size, got, tt.want)
		}
	}
}

func TestLoad(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/conversations/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example scripts: %v", err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}

	dir := t.TempDir()
	bad := []struct{ script, want string }{
		{`{"turns":[{"txt":"typo"}]}`, `unknown field "txt"`},
		{`{"turns":[{"quirk":"llama"}]}`, `unknown quirk "llama"`},
		{`{"turns":[{"error":{"status":200}}]}`, "not an HTTP error"},
		{`{"turns":[{"toolCalls":[{"arguments":"{}"}]}]}`, "has no name"},
	}
	for i, b := range bad {
		path := filepath.Join(dir, fmt.Sprintf("bad%d.json", i))
		if err := os.WriteFile(path, []byte(b.script), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want %q", b.script, err, b.want)
		}
	}
}

// Image parts are recorded as their URLs beside the joined text, from chat
// (image_url {url}) and from the Responses API (input_image).
func TestImagePartsRecorded(t *testing.T) {
	s, url := start(t, &Script{Turns: []Turn{{Text: "a"}, {Text: "b"}, {Text: "c"}}})
	resp := post(t, url, `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"see "},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"this"}]}]}`)
	if got := readSSE(resp.Body); resp.StatusCode != 200 || !got.done {
		t.Fatalf("chat: %d %v", resp.StatusCode, got.err)
	}
	req, err := http.NewRequest(http.MethodPost, url+"/responses", strings.NewReader(
		`{"model":"m","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"and"},{"type":"input_image","image_url":"data:image/gif;base64,BBBB"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, r2.Body)
	_ = r2.Body.Close()
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded (responses: %d)", len(reqs), r2.StatusCode)
	}
	m0, m1 := reqs[0].Body.Messages[0], reqs[1].Body.Messages[0]
	if m0.Content != "see this" || len(m0.Images) != 1 || m0.Images[0] != "data:image/png;base64,AAAA" {
		t.Errorf("chat message recorded as %+v", m0)
	}
	if m1.Content != "and" || len(m1.Images) != 1 || m1.Images[0] != "data:image/gif;base64,BBBB" {
		t.Errorf("responses message recorded as %+v", m1)
	}
	bad := post(t, url, `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]}`)
	if bad.StatusCode != 400 {
		t.Errorf("an image part without a URL: status %d, want 400", bad.StatusCode)
	}
}
