package outbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkfamily/spark/outbox/photo/phototest"
)

// writePhoto writes a generated JPEG into dir/name and returns its path.
func writePhoto(tb testing.TB, dir, name string, seed uint64) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, phototest.JPEG(64, 48, seed), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// testOptions are fast options for tests: short back-off, fixed jitter.
func testOptions() Options {
	return Options{
		BackoffBase: 5 * time.Millisecond,
		BackoffCap:  50 * time.Millisecond,
		Rand:        func() float64 { return 0.5 },
	}
}

// openTest opens an outbox in a temporary folder, closed at cleanup.
func openTest(tb testing.TB, dir string, opts Options) *Outbox {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	o, err := Open(context.Background(), dir, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { o.Close() })
	return o
}

// listDir returns the names in dir (none when it does not exist).
func listDir(tb testing.TB, dir string) []string {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// mustCapture captures paths and fails the test on any error.
func mustCapture(tb testing.TB, o *Outbox, paths ...string) []CaptureResult {
	tb.Helper()
	res := o.Capture(context.Background(), paths, CaptureOptions{})
	for _, r := range res {
		if r.Err != nil {
			tb.Fatalf("Capture %s: %v", r.Path, r.Err)
		}
	}
	return res
}
