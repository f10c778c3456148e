package fakellm

// This file is over 400 lines because the chat completions stream and its
// fault injections (breaks, stalls, resets, quirks of other servers) are one
// state machine over the SSE events, easier to check in one place.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Server serves a Script over HTTP. Set the exported fields before Start.
type Server struct {
	// Addr is where to listen; default "127.0.0.1:0" (a free loopback port).
	Addr string
	// APIKey, when set, is required as "Authorization: Bearer <APIKey>";
	// other requests get 401 in OpenAI's shape.
	APIKey string
	// Log gets one line per request (never the API key); nil discards.
	Log *log.Logger
	// RequestLog gets each recorded chat request as one JSON line, for
	// assertions from scripts in other languages.
	RequestLog io.Writer

	script *Script

	mu       sync.Mutex
	next     int // index of the next turn to serve
	requests []RecordedRequest
	conns    int // TCP connections accepted
	closed   bool
	logMu    sync.Mutex // serialises RequestLog writes

	srv       *http.Server
	baseURL   string
	done      chan struct{} // closed by Close: wakes sleeping handlers
	handlers  sync.WaitGroup
	serveDone chan struct{}
}

// New returns a server for script; nothing listens until Start.
func New(script *Script) *Server {
	if script == nil {
		script = &Script{}
	}
	return &Server{script: script, done: make(chan struct{})}
}

// Start listens and serves in the background. It returns the base URL that
// an OpenAI client takes, like "http://127.0.0.1:43127/v1".
func (s *Server) Start() (string, error) {
	if s.srv != nil {
		return "", errors.New("fakellm: server already started")
	}
	addr := s.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("fakellm: listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, ErrorReply{Message: fmt.Sprintf("fakellm: no route for %s %s (the base URL should end in /v1)", r.Method, r.URL.Path)})
	})
	s.srv = &http.Server{
		Handler:           s.guard(mux),
		ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				s.mu.Lock()
				s.conns++
				n := s.conns
				s.mu.Unlock()
				s.logf("connection opened (%d so far)", n)
			}
		},
		// Broken streams are deliberate here; do not log them as faults.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	s.baseURL = "http://" + ln.Addr().String() + "/v1"
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.srv.Serve(ln) // returns ErrServerClosed after Close
	}()
	return s.baseURL, nil
}

// URL returns the base URL once started.
func (s *Server) URL() string { return s.baseURL }

// Close stops the server, ends streams still running and waits for their
// handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	var err error
	if s.srv != nil {
		err = s.srv.Close()
		<-s.serveDone
	}
	s.handlers.Wait()
	return err
}

// Requests returns the chat requests received so far, in arrival order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

// Pending returns how many turns have not been served yet; a test that ran
// the whole conversation expects 0.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(0, len(s.script.Turns)-s.next)
}

// Connections returns how many TCP connections the server accepted, so
// tests can check that a client reuses its connection.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// guard counts running handlers (so Close can wait for them) and checks the
// API key.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			writeError(w, http.StatusServiceUnavailable, ErrorReply{Message: "fakellm: server is closing"})
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()

		if s.APIKey != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || got != s.APIKey {
				s.logf("%s %s: 401 (bad or missing API key)", r.Method, r.URL.Path)
				// Echo the key the way some proxies do, so clients are
				// tested for not passing server messages through verbatim.
				writeError(w, http.StatusUnauthorized, ErrorReply{Message: "Incorrect API key provided: " + got, Code: "invalid_api_key"})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	names := s.script.Models
	if len(names) == 0 {
		names = []string{"fake-model"}
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, n := range names {
		list.Data = append(list.Data, model{ID: n, Object: "model", OwnedBy: "fakellm"})
	}
	writeJSON(w, http.StatusOK, list)
}

// take consumes the next turn. It returns -1 when the script is exhausted.
func (s *Server) take(rec RecordedRequest) (int, Turn) {
	s.mu.Lock()
	idx := -1
	var t Turn
	if len(s.script.Conversations) > 0 {
		idx, t = conversationTurn(s.script.Conversations, rec.Body.Messages)
	} else if i, a, ok := s.aside(rec.Body); ok {
		idx, t = i, a
	} else if s.next < len(s.script.Turns) {
		idx, t = s.next, s.script.Turns[s.next]
		s.next++
	}
	rec.Turn = idx
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	if s.RequestLog != nil {
		line, err := json.Marshal(rec)
		if err == nil {
			s.logMu.Lock()
			_, _ = s.RequestLog.Write(append(line, '\n'))
			s.logMu.Unlock()
		}
	}
	return idx, t
}

// conversationTurn picks a request's turn from Script.Conversations: -1
// when no conversation's key is in its first user message, or the
// conversation has no turn that far.
func conversationTurn(convs map[string][]Turn, msgs []Message) (int, Turn) {
	first, assistants := "", 0
	for _, m := range msgs {
		if m.Role == "user" && first == "" {
			first = m.Content
		}
		if m.Role == "assistant" {
			assistants++
		}
	}
	keys := make([]string, 0, len(convs))
	for k := range convs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.Contains(first, k) {
			if turns := convs[k]; assistants < len(turns) {
				return assistants, turns[assistants]
			}
			return -1, Turn{}
		}
	}
	return -1, Turn{}
}

// asideBase numbers the asides' answers apart from the turns'.
const asideBase = 1000

// aside is the first aside whose Expect the request matches.
func (s *Server) aside(req ChatRequest) (int, Turn, bool) {
	for i, a := range s.script.Asides {
		if req.expectMismatch(asideBase+i, a.Expect) == "" {
			return asideBase + i, a, true
		}
	}
	return 0, Turn{}, false
}

// begin takes the next turn for a request, records it, and plays the
// turn's faults that come before any answer, the same for every API: the
// script running out, a reset, a delay, an HTTP error. ok is false when the
// response is already written.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, rec RecordedRequest) (idx int, turn Turn, ok bool) {
	rec.Authorization = redactedAuth(r.Header.Get("Authorization"))
	idx, turn = s.take(rec)
	if idx < 0 {
		s.logf("request past the end of the script (%d turns)", len(s.script.Turns))
		writeError(w, http.StatusInternalServerError, ErrorReply{Message: fmt.Sprintf("fakellm: script exhausted: all %d turns were served", len(s.script.Turns))})
		return idx, turn, false
	}
	if turn.Reset {
		s.logf("turn %d: reset", idx)
		resetConn(w)
		return idx, turn, false
	}
	if !s.sleep(r.Context(), turn.DelayMs) {
		return idx, turn, false
	}
	if e := turn.Error; e != nil {
		s.logf("turn %d: HTTP %d", idx, e.Status)
		if e.RetryAfter != "" {
			w.Header().Set("Retry-After", e.RetryAfter)
		}
		writeError(w, e.Status, *e)
		return idx, turn, false
	}
	return idx, turn, true
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, ErrorReply{Message: "fakellm: read body: " + err.Error()})
		return
	}
	req, reqErr := decodeRequest(body)
	idx, turn, ok := s.begin(w, r, RecordedRequest{Body: req})
	if !ok {
		return
	}
	ctx := r.Context()
	if s.rejected(w, idx, turn, req, reqErr) {
		return
	}
	s.logf("turn %d: %d text bytes, %d tool calls, stream=%v", idx, len(turn.Text), len(turn.ToolCalls), req.Stream)
	a := newAnswer(idx, turn, req)
	if !req.Stream {
		writeJSON(w, http.StatusOK, a.whole())
		return
	}
	s.stream(ctx, w, turn, a.chunks(req.StreamOptions != nil && req.StreamOptions.IncludeUsage && !turn.OmitUsage))
}

// rejected answers 400, as OpenAI would, to a request that is invalid
// (reqErr) or that is not what the turn expects.
func (s *Server) rejected(w http.ResponseWriter, idx int, turn Turn, req ChatRequest, reqErr error) bool {
	if reqErr != nil {
		s.logf("turn %d: invalid request: %v", idx, reqErr)
		writeError(w, http.StatusBadRequest, ErrorReply{Message: reqErr.Error()})
		return true
	}
	if msg := req.expectMismatch(idx, turn.Expect); msg != "" {
		s.logf("turn %d: %s", idx, msg)
		writeError(w, http.StatusBadRequest, ErrorReply{Message: msg, Code: "fakellm_expect"})
		return true
	}
	return false
}

// stream writes chat completion chunks as SSE, then [DONE].
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, turn Turn, events [][]byte) {
	frames := make([][]byte, 0, len(events)+1)
	for _, e := range events {
		frames = append(frames, append(append([]byte("data: "), e...), "\n\n"...))
	}
	// Breaks, ends and stalls placed past the last chunk still happen,
	// before [DONE].
	s.sse(ctx, w, turn, append(frames, []byte("data: [DONE]\n\n")), len(events))
}

// sse writes whole SSE frames, misbehaving as the turn says: keep-alive
// comments first, then a break, a clean end or a stall at the frame its
// index names (clamped to last), and a delay between frames. Both APIs
// share it, so a fault means the same on each.
func (s *Server) sse(ctx context.Context, w http.ResponseWriter, turn Turn, frames [][]byte, last int) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	for range turn.KeepAlive {
		if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
			return
		}
	}
	if turn.KeepAlive > 0 && rc.Flush() != nil {
		return
	}
	stallAfter := 1
	if turn.StallAfter != nil {
		stallAfter = *turn.StallAfter
	}
	for i := 0; i <= len(frames); i++ {
		if turn.BreakAfter != nil && i == min(*turn.BreakAfter, last) {
			breakConn(rc)
			return
		}
		if turn.EndAfter != nil && i == min(*turn.EndAfter, last) {
			return // a clean end of the body, without the rest
		}
		if i == len(frames) {
			break
		}
		if turn.StallMs > 0 && i == min(stallAfter, last) && !s.sleep(ctx, turn.StallMs) {
			return
		}
		if i > 0 && !s.sleep(ctx, turn.ChunkDelayMs) {
			return
		}
		if _, err := w.Write(frames[i]); err != nil || rc.Flush() != nil {
			return
		}
	}
	// The chunked-encoding terminator, written when the handler returns,
	// is a chunk too: clients that stop reading at the last event lose
	// the connection instead of reusing it.
	s.sleep(ctx, turn.ChunkDelayMs)
}

// breakConn ends a response mid-body: the client sees the chunked body cut
// off, as when a proxy or the model server dies.
func breakConn(rc *http.ResponseController) {
	conn, _, err := rc.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// resetConn drops the connection with a TCP RST and no response at all.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close sends RST instead of FIN
	}
	_ = conn.Close()
}

// sleep waits ms milliseconds; false when the client left or the server is
// closing.
func (s *Server) sleep(ctx context.Context, ms int) bool {
	if ms <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log.Printf(format, args...)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":{"message":"fakellm: encode response","type":"server_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// writeError answers in OpenAI's error shape.
func writeError(w http.ResponseWriter, status int, e ErrorReply) {
	typ := e.Type
	if typ == "" {
		switch {
		case status == http.StatusTooManyRequests:
			typ = "requests"
		case status >= 500:
			typ = "server_error"
		default:
			typ = "invalid_request_error"
		}
	}
	var code any // OpenAI sends null rather than omitting it
	if e.Code != "" {
		code = e.Code
	} else if status == http.StatusTooManyRequests {
		code = "rate_limit_exceeded"
	}
	type body struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Param   any    `json:"param"`
		Code    any    `json:"code"`
	}
	writeJSON(w, status, struct {
		Error body `json:"error"`
	}{body{Message: e.Message, Type: typ, Code: code}})
}
