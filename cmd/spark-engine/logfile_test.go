package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/internal/syncbuf"
)

// TestServe_LogFile: with --log-file (a Windows service has no standard
// error) serve appends its log to the file, from "serving" to "the log is
// synced", and writes none to standard error.
func TestServe_LogFile(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "spark-engine.log")
	if err := os.WriteFile(logPath, []byte("an earlier run\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- serveCmd(ctx, []string{"--data", dir, "--listen", "127.0.0.1:0", "--log-file", logPath}, &stderr)
	}()
	read := func() string {
		b, _ := os.ReadFile(logPath)
		return string(b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(read(), "msg=serving") {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not log to the file:\n%s", read())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel(stopCause{os.Interrupt})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	log := read()
	if !strings.HasPrefix(log, "an earlier run\n") || !strings.Contains(log, "the log is synced") {
		t.Errorf("the log file:\n%s", log)
	}
	if stderr.String() != "" {
		t.Errorf("serve wrote to standard error with --log-file:\n%s", stderr.String())
	}
}
