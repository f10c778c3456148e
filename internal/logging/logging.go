// Package logging builds agentls's zap loggers. Logs go to stderr or a file,
// never stdout: stdout carries the LSP and ACP streams.
package logging

import (
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// New returns a JSON logger at level writing to file (appended, 0600) or,
// when file is "", to stderr. The returned func closes the file.
func New(file, level string, stderr io.Writer) (*zap.Logger, func(), error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	var ws zapcore.WriteSyncer = zapcore.AddSync(stderr)
	closeFn := func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		ws = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), ws, lvl)
	return zap.New(core), closeFn, nil
}
