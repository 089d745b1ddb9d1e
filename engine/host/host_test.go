package host_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/host"
)

func quietConfig(dir, addr string) host.Config {
	return host.Config{
		Engine: engine.Config{Dir: dir, Logger: slog.New(slog.DiscardHandler)},
		Addr:   addr,
	}
}

// TestStart serves an engine, asks it something, and closes it: serving
// stops and the engine is closed (its data folder opens again).
func TestStart(t *testing.T) {
	t.Setenv("SPARK_BRAIN_URL", "")
	dir := t.TempDir()
	se, err := host.Start(context.Background(), quietConfig(dir, "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(se.URL + "/v1/health")
	if err != nil {
		se.Close()
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/health = %d, want 200", resp.StatusCode)
	}
	if err := se.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	select {
	case <-se.Done():
	default:
		t.Fatal("Done is open after Close")
	}
	if err := se.Err(); err != nil {
		t.Errorf("Err after Close = %v, want nil", err)
	}
	if err := se.Close(); err != nil {
		t.Errorf("second Close = %v, want the first's nil", err)
	}
	if _, err := http.Get(se.URL + "/v1/health"); err == nil {
		t.Error("the engine still answers after Close")
	}
	eng, err := engine.Open(context.Background(), engine.Config{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	eng.Close()
}

// TestStart_ListenFails checks that a taken address is a listen error and
// leaves no engine open.
func TestStart_ListenFails(t *testing.T) {
	t.Setenv("SPARK_BRAIN_URL", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	_, err = host.Start(context.Background(), quietConfig(dir, ln.Addr().String()))
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "listen" {
		t.Fatalf("Start on a taken address = %v, want a listen *net.OpError", err)
	}
	eng, err := engine.Open(context.Background(), engine.Config{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("open after a failed Start: %v", err)
	}
	eng.Close()
}

// TestServe_GraceCutsOff checks that Close lets a request in flight finish
// within the grace and cuts off one that outlasts it.
func TestServe_GraceCutsOff(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	s, err := host.Serve("127.0.0.1:0", h, nil, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer close(release)
	go http.Get(s.URL)
	<-started
	start := time.Now()
	err = s.Close()
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close with a request outlasting the grace = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s, want about the 100ms grace", d)
	}
}
