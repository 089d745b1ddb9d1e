package enginetest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/host"
	"github.com/sparkfamily/spark/engine/server"
)

// An engine in a child process, for the tests that SIGKILL it: the test
// binary run again with childDirEnv set, which ChildMain turns into an
// engine serving that directory (no seat) until it is killed. It writes
// "URL TOKEN" to DIR/child.addr once it serves.

const (
	childDirEnv  = "SPARK_ENGINETEST_CHILD_DIR"
	childAddrEnv = "SPARK_ENGINETEST_CHILD_ADDR"
	childAddr    = "child.addr"
)

// ChildMain serves an engine and never returns when this process is a
// child started by StartChild; otherwise it returns at once. A test
// package that calls StartChild calls it from an init function (or
// TestMain).
func ChildMain() {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		return
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	se, err := host.Start(ctx, host.Config{
		Engine: engine.Config{Dir: dir, Logger: quiet, RetryBackoff: 10 * time.Millisecond},
		Addr:   os.Getenv(childAddrEnv),
		Server: server.Options{Logger: quiet},
	})
	if err != nil {
		os.Stderr.WriteString("enginetest child: " + err.Error() + "\n")
		os.Exit(3)
	}
	// As Start: a fresh token replaces the previous run's.
	if _, err := se.Engine.Tokens().Revoke(tokenName); err != nil {
		os.Stderr.WriteString("enginetest child: " + err.Error() + "\n")
		os.Exit(3)
	}
	tok, err := se.Engine.Tokens().Add(tokenName, auth.ScopeAdmin)
	if err != nil {
		os.Stderr.WriteString("enginetest child: " + err.Error() + "\n")
		os.Exit(3)
	}
	tmp := filepath.Join(dir, childAddr+".tmp")
	if err := os.WriteFile(tmp, []byte(se.URL+" "+tok), 0o600); err != nil {
		os.Exit(3)
	}
	if err := os.Rename(tmp, filepath.Join(dir, childAddr)); err != nil {
		os.Exit(3)
	}
	select {} // until killed
}

// Child is an engine served by a child process.
type Child struct {
	// URL is the server's base URL, without a trailing slash; Token a
	// valid (admin) bearer token; Dir the engine's data directory.
	URL, Token, Dir string

	cmd  *exec.Cmd
	done chan struct{}
}

// StartChild runs an engine on dir in a child process, at addr
// ("host:port"; "" for a free port on 127.0.0.1), and kills it at the end
// of the test. The test package must call ChildMain from its init.
func StartChild(tb testing.TB, dir, addr string) *Child {
	tb.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	os.Remove(filepath.Join(dir, childAddr))
	exe, err := os.Executable()
	if err != nil {
		tb.Fatalf("enginetest: start a child engine: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childAddrEnv+"="+addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("enginetest: start a child engine: %v", err)
	}
	c := &Child{Dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(c.done) }()
	tb.Cleanup(c.Kill)
	deadline := time.After(30 * time.Second)
	for {
		if b, err := os.ReadFile(filepath.Join(dir, childAddr)); err == nil {
			c.URL, c.Token, _ = strings.Cut(string(b), " ")
			return c
		}
		select {
		case <-c.done:
			tb.Fatalf("enginetest: the child engine on %s ended before it served (does the test package call enginetest.ChildMain from its init?)", dir)
		case <-deadline:
			tb.Fatalf("enginetest: the child engine on %s did not serve within 30s", dir)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Kill SIGKILLs the child engine and waits until it is gone; a second
// call does nothing.
func (c *Child) Kill() {
	c.cmd.Process.Kill()
	<-c.done
}

// Addr is the child's host:port, to start the next child at the same
// address.
func (c *Child) Addr() string { return strings.TrimPrefix(c.URL, "http://") }
