// Command fakellm serves a scripted OpenAI-compatible chat API, for editor
// tests and demos that start it as a subprocess.
//
//	fakellm -script FILE [-addr 127.0.0.1:0] [-log FILE] [-requests FILE] [-api-key KEY]
//
// The first line on stdout is the base URL (http://127.0.0.1:PORT/v1); then
// it serves until killed or, when stdin is a pipe, until stdin closes, so a
// parent that dies cannot leave it running.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

func run() error {
	scriptPath := flag.String("script", "", "conversation script (JSON)")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	logPath := flag.String("log", "", "log file (default: stderr)")
	requestsPath := flag.String("requests", "", "append each chat request as a JSON line to this file")
	apiKey := flag.String("api-key", "", "require this bearer key (default: none)")
	flag.Parse()
	if *scriptPath == "" || flag.NArg() > 0 {
		flag.Usage()
		return errors.New("-script is required and no arguments are taken")
	}
	script, err := fakellm.Load(*scriptPath)
	if err != nil {
		return err
	}

	srv := fakellm.New(script)
	srv.Addr = *addr
	srv.APIKey = *apiKey
	logOut := io.Writer(os.Stderr)
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open log: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	srv.Log = log.New(logOut, "fakellm: ", log.LstdFlags|log.Lmicroseconds)
	if *requestsPath != "" {
		f, err := os.OpenFile(*requestsPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open requests file: %w", err)
		}
		defer f.Close()
		srv.RequestLog = f
	}

	url, err := srv.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(url)
	srv.Log.Printf("serving %s (%d turns) at %s", *scriptPath, len(script.Turns), url)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if stdinIsPipe() {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}
	<-ctx.Done()
	srv.Log.Printf("stopping: %d turns not served", srv.Pending())
	return nil
}

// stdinIsPipe tells whether stdin end-of-file means the parent went away.
// A terminal or /dev/null (a background job in `make demo`) says nothing
// about the parent, so those are not watched.
func stdinIsPipe() bool {
	fi, err := os.Stdin.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}
