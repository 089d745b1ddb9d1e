package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/internal/racebuild"
)

// keepFlags puts every flag back as it was when t ends: run parses its
// arguments into the flag set all benchmarks share.
func keepFlags(t *testing.T) {
	t.Helper()
	old := map[string]string{}
	flag.VisitAll(func(f *flag.Flag) { old[f.Name] = f.Value.String() })
	t.Cleanup(func() {
		flag.VisitAll(func(f *flag.Flag) {
			if v := old[f.Name]; f.Value.String() != v {
				if err := f.Value.Set(v); err != nil {
					t.Errorf("restore --%s: %v", f.Name, err)
				}
			}
		})
	})
}

// TestEngineBench was spark-engine's TestBench: the engine benchmark, run
// small, prints every figure.
func TestEngineBench(t *testing.T) {
	racebuild.Heavy(t, benchRun)
	if testing.Short() {
		t.Skip("the bench runs child processes for a few seconds")
	}
	keepFlags(t)
	var outb bytes.Buffer
	err := run(context.Background(), []string{"engine", "--dir", t.TempDir(), "--runs", "1", "--duration", "100ms", "--rebuild-ops", "1000", "--media-mb", "1"}, &outb)
	out := outb.String()
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	for _, want := range []string{
		"raw write+fsync", "bare JSON handler, 16 clients", "bare JSON handler, 32 clients", "bare JSON + write+fsync, 1 client", "bare JSON + group fsync, 32 clients",
		"creates over HTTP, 1 client", "creates over HTTP, 32 clients", "bare bulk insert, 1,000 ops",
		"bare JSON + group fsync, least create, 32 clients", "creates over HTTP, least fold, 32 clients",
		"rebuild, 1,000 ops", "bare hashing handler, 1 MB PUT", "raw write+fsync, 1 MB file", "media PUT, 1 MB", "peak RSS", "p99",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
}
