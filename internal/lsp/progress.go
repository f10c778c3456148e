package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// progress is one task's $/progress stream. It owns the fallback policy:
// clients without window.workDoneProgress get window/showMessage at the
// start and window/logMessage for reports. End and reports detach from the
// task's context, so a cancelled task still closes its progress.
type progress struct {
	notify func(ctx context.Context, method string, params any) // the server's notification to the client
	token  protocol.ProgressToken
	ok     bool

	mu   sync.Mutex
	last string
	done bool
}

// createTimeout bounds window/workDoneProgress/create.
const createTimeout = 2 * time.Second

func (p *progress) send(ctx context.Context, v any) {
	raw, err := protocol.Marshal(v)
	if err != nil {
		return
	}
	p.notify(ctx, protocol.MethodProgress, &protocol.ProgressParams{Token: p.token, Value: protocol.LSPAny(raw)})
}

// report says what the agent is doing now; repeated messages are dropped.
func (p *progress) report(ctx context.Context, msg string) {
	p.mu.Lock()
	if p.done || msg == p.last {
		p.mu.Unlock()
		return
	}
	p.last = msg
	p.mu.Unlock()
	if p.ok {
		p.send(ctx, &protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
		return
	}
	p.notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: protocol.MessageTypeLog, Message: "agentls: " + msg})
}

func (p *progress) end(ctx context.Context, msg string) {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return
	}
	p.done = true
	p.mu.Unlock()
	if p.ok {
		p.send(ctx, &protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
	}
}

func (rn *runner) beginProgress(ctx context.Context, t *runningTask, title, msg string) *progress {
	p := &progress{notify: rn.ed.notify}
	caps, _ := rn.ed.clientState()
	supported := caps.workDoneProgress
	if supported {
		// A fresh token per task: a client may still track an old one.
		tok := protocol.String("agentls-task-" + t.id)
		// Bounded: a client that never answers (Emacs 28's jsonrpc can leave
		// the request unread) must not hold the task back.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
		err := rn.ed.client.WorkDoneProgressCreate(cctx, &protocol.WorkDoneProgressCreateParams{Token: tok})
		cancel()
		if err != nil {
			rn.log.Info("workDoneProgress/create failed; falling back to messages", zap.Error(err))
		} else {
			p.token, p.ok = tok, true
			t.setToken(string(tok))
		}
	}
	if p.ok {
		cancellable := true
		p.send(ctx, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &cancellable, Message: &msg})
	} else {
		rn.ed.showMessage(ctx, protocol.MessageTypeInfo, "%s: %s", title, msg)
	}
	p.last = msg
	t.mu.Lock()
	t.prog = p
	t.mu.Unlock()
	return p
}
