package chat

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/jsonscan"
)

// Chunks as servers send them (OpenAI, Ollama, llama.cpp, vLLM, LM Studio
// shapes), and shapes that must leave the fast path: whatever the input,
// decodeChunk gives what encoding/json gives, error or not.
var chunkCorpus = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}`,
	`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]},"finish_reason":null}]}`,
	`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`{"id":"x","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46,"prompt_tokens_details":{"cached_tokens":0}}}`,
	`{"id":"x","choices":[{"index":0,"delta":{"content":"héllo ✓ 日本"},"finish_reason":"stop"}],"usage":null}`,
	`{"choices":[{"delta":{"content":"a\nb \"q\" \u00e9 \ud83d\ude00"}}]}`,
	`{"choices":[{"delta":{"reasoning_content":"think","content":null}}]}`,
	`{"choices":[{"index":0,"delta":{"refusal":"no"},"finish_reason":"content_filter","content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`,
	`{"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}],"choices":[]}`,
	`{"choices":[{"index":1,"delta":{"content":"second choice"}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"grep","arguments":"{}"}},{"index":null,"id":"b","function":{"name":"x","arguments":null}}]}}]}`,
	`  {"choices" : [ { "index" : 0 , "delta" : { "content" : "spaced" } } ] , "x" : [1, -2.5e3, true, false, null, {"a":[]}] }  `,
	`{"choices":null,"usage":{}}`,
	`{"choices":[null,{"delta":null},{"delta":{"tool_calls":null}},{"delta":{"tool_calls":[null]}}]}`,
	`{"Choices":[{"Delta":{"Content":"case"}}]}`,
	`{"choices":[{"delta":{"CONTENT":"upper"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"delta":{"refusal":"b"}}]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"index":1.0}]}`,
	`{"choices":[{"index":"0"}]}`,
	`{"choices":[{"index":-0}]}`,
	`{"choices":[{"index":01}]}`,
	`{"choices":[{"index":99999999999999999999}]}`,
	`{"usage":{"prompt_tokens":1e2}}`,
	`{"choices":[{"delta":{"content":5}}]}`,
	`{"choices":[{"delta":{"content":"bad \x"}}]}`,
	`{"x":"bad \x"}`,
	`{"x":"ok \/ \b \u00e9"}`,
	"{\"choices\":[{\"delta\":{\"content\":\"ctl \x01\"}}]}",
	"{\"choices\":[{\"delta\":{\"content\":\"bad utf8 \xff\"}}]}",
	"{\"x\":\"bad utf8 \xff\",\"choices\":[]}",
	`{"choices":[{"delta":{"tool_callſ":[{"id":"long s"}]}}]}`,
	`{"choices":[{"delta":{"content":"x"}}]} trailing`,
	`{"choices":[{"delta":{"content":"x"}}]`,
	`{"choices":[}`,
	`{"choices":[1]}`,
	`{"a":nul}`,
	`{"a":[1,]}`,
	`{,}`,
	`null`,
	`[]`,
	``,
	`{}`,
	`{"cho\u0069ces":[{"delta":{"content":"escaped key"}}]}`,
}

func TestDecodeChunkMatchesEncodingJSON(t *testing.T) {
	fast := 0
	for _, in := range chunkCorpus {
		checkChunk(t, []byte(in))
		s := jsonscan.New([]byte(in))
		var c chunk
		if scanChunk(&s, &c, nil) && s.End() {
			fast++
		}
	}
	// The test is about the fast path: most real chunks must take it.
	if fast < 15 {
		t.Errorf("only %d of the corpus took the fast path", fast)
	}
}

func checkChunk(t *testing.T, in []byte) {
	t.Helper()
	var want chunk
	wantErr := json.Unmarshal(in, &want)
	got := chunk{Choices: make([]chunkChoice, 3, 4)} // stale contents must not show
	got.Choices[0].FinishReason = "stale"
	gotErr := decodeChunk(in, &got)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%q: error %v, encoding/json: %v", in, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("%q:\n got %s\nwant %s", in, g, w)
	}
}

func FuzzDecodeChunk(f *testing.F) {
	for _, in := range chunkCorpus {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkChunk(t, in) })
}

func BenchmarkDecodeChunk(b *testing.B) {
	in := []byte(`{"id":"chatcmpl-fake-21","object":"chat.completion.chunk","created":1763872672,"model":"bench-model","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_21","type":"function","function":{"name":"edit_file","arguments":"{\"new_string\":\"value 1\\n\",\"old_string\":\"value 0\\n\",\"path\":\"src/file10.txt\"}"}}]},"finish_reason":null}]}`)
	b.Run("fast", func(b *testing.B) {
		var c chunk
		for b.Loop() {
			if err := decodeChunk(in, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var c chunk
			if err := json.Unmarshal(in, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
