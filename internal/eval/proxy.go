package eval

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Request is one model request as the proxy saw it.
type Request struct {
	Bytes int    `json:"bytes"` // the request body
	Path  string `json:"path"`  // /v1/chat/completions or /v1/responses
	// InputTokens, CachedTokens and OutputTokens are the server's usage
	// report (cached: prompt_tokens_details / input_tokens_details).
	InputTokens  int `json:"inputTokens"`
	CachedTokens int `json:"cachedTokens"`
	OutputTokens int `json:"outputTokens"`
	// PrefixShare is the fraction of this request's input (tools, system
	// prompt, messages, in the order a provider renders them) that is a
	// byte-identical prefix of the previous request's; 0 for the first.
	PrefixShare float64 `json:"prefixShare"`
	// PrevKept is the fraction of the previous request's input that this
	// one repeats as its prefix: 1 when the conversation only grew (all
	// of the previous request can be served from cache), less after
	// compaction or anything that rewrote earlier input; 0 for the first.
	PrevKept float64 `json:"prevKept"`
	// canonical is the input in render order, for the next PrefixShare.
	canonical []byte
}

// proxy forwards model requests to upstream and records each one.
type proxy struct {
	upstream *url.URL
	srv      *http.Server
	ln       net.Listener
	served   chan struct{} // closed when Serve has returned
	mu       sync.Mutex
	reqs     []Request
}

func startProxy(upstream string) (*proxy, string, error) {
	u, err := url.Parse(strings.TrimRight(upstream, "/"))
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	p := &proxy{upstream: u, ln: ln, served: make(chan struct{})}
	p.srv = &http.Server{Handler: p}
	go func() {
		defer close(p.served)
		_ = p.srv.Serve(ln) // ErrServerClosed after close; net/http recovers handler panics
	}()
	return p, "http://" + ln.Addr().String() + "/v1", nil
}

// close stops the proxy and waits for its server goroutine.
func (p *proxy) close() {
	_ = p.srv.Close()
	<-p.served
}

func (p *proxy) requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.reqs...)
}

// ServeHTTP forwards one request: the path after /v1 goes to the
// upstream's base path, headers (the key) unchanged.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target := *p.upstream
	target.Path = p.upstream.Path + strings.TrimPrefix(r.URL.Path, "/v1")
	target.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	var tee bytes.Buffer
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			tee.Write(buf[:n])
			_, _ = w.Write(buf[:n])
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			break
		}
	}
	if r.Method != http.MethodPost || resp.StatusCode != http.StatusOK {
		return
	}
	rec := Request{Bytes: len(body), Path: r.URL.Path, canonical: canonical(body)}
	rec.InputTokens, rec.CachedTokens, rec.OutputTokens = usageOf(tee.Bytes())
	p.mu.Lock()
	if n := len(p.reqs); n > 0 {
		prev := p.reqs[n-1].canonical
		common := commonPrefix(prev, rec.canonical)
		rec.PrefixShare = share(common, len(rec.canonical))
		rec.PrevKept = share(common, len(prev))
	}
	p.reqs = append(p.reqs, rec)
	p.mu.Unlock()
}

// canonical renders a request's input in the order providers put it in
// front of the model (tools, then instructions, then the conversation),
// each part as the bytes sent, so that equal prefixes mean equal cached
// tokens. Chat completions and Responses bodies both work.
func canonical(body []byte) []byte {
	var req struct {
		Tools        json.RawMessage   `json:"tools"`
		Instructions json.RawMessage   `json:"instructions"`
		Messages     []json.RawMessage `json:"messages"`
		Input        json.RawMessage   `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	var b bytes.Buffer
	b.Write(req.Tools)
	b.Write(req.Instructions)
	for _, m := range req.Messages {
		b.Write(m)
	}
	var items []json.RawMessage
	if json.Unmarshal(req.Input, &items) == nil {
		for _, it := range items {
			b.Write(it)
		}
	} else {
		b.Write(req.Input)
	}
	return b.Bytes()
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// usageOf finds the last usage report in a streamed answer (chat's final
// chunk, or Responses' response.completed).
func usageOf(stream []byte) (in, cached, out int) {
	for _, line := range bytes.Split(stream, []byte("\n")) {
		data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
		if !ok || !bytes.Contains(data, []byte(`"usage"`)) {
			continue
		}
		var ev struct {
			Usage    *usage `json:"usage"`
			Response *struct {
				Usage *usage `json:"usage"`
			} `json:"response"`
		}
		if json.Unmarshal(bytes.TrimSpace(data), &ev) != nil {
			continue
		}
		u := ev.Usage
		if u == nil && ev.Response != nil {
			u = ev.Response.Usage
		}
		if u == nil {
			continue
		}
		in, out = u.PromptTokens+u.InputTokens, u.CompletionTokens+u.OutputTokens
		cached = 0
		if d := u.PromptDetails; d != nil {
			cached += d.Cached
		}
		if d := u.InputDetails; d != nil {
			cached += d.Cached
		}
	}
	return in, cached, out
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	PromptDetails    *struct {
		Cached int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	InputDetails *struct {
		Cached int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}
