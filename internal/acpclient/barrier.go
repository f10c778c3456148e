package acpclient

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// barrier is the panic barrier of a method the SDK calls on a goroutine of
// its own: the panic is logged and answered as an internal error, and the
// connection goes on. Without it a panic in what the bridge calls (the
// language server's workspace, its way of asking, its event sink) would
// end agentls serve.
func barrier(log *zap.Logger, method string, err *error) {
	if p := recover(); p != nil {
		log.Error("panic", zap.String("in", method), zap.Any("panic", p), zap.Stack("stack"))
		*err = sdk.NewInternalError(map[string]any{"error": fmt.Sprintf("internal error in %s: %v", method, p)})
	}
}

func recoverLog(log *zap.Logger, what string) {
	if p := recover(); p != nil {
		log.Error("panic", zap.String("in", what), zap.Any("panic", p), zap.Stack("stack"))
	}
}
