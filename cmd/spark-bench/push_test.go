package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// runPushBench runs the push benchmark with small moments, 1 MB of
// originals and one round, and returns what it printed.
func runPushBench(t *testing.T, small string) string {
	t.Helper()
	for name, v := range map[string]string{"push-small": small, "push-big-mb": "1", "push-rounds": "1", "dir": t.TempDir()} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set(name, old) })
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"push"}, &out); err != nil {
		t.Fatalf("push bench: %v\n%s", err, out.String())
	}
	return out.String()
}

// TestPushBench runs the push benchmark small (20 moments, 1 MB, one
// round) and checks that both figures come out beside the drain's.
func TestPushBench(t *testing.T) {
	out := runPushBench(t, "20")
	for _, want := range []string{"20 small moments: drain", "moments/s", "1 MB of originals: drain", "MB/s", "of the drain, goal >= 80%"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestPushBench_PeakRSS: the push runs in a child process and its peak
// RSS comes out, for the small moments and for the originals.
func TestPushBench_PeakRSS(t *testing.T) {
	out := runPushBench(t, "5")
	var small, big float64
	var n, mb int
	at := strings.Index(out, "  push peak RSS")
	if at < 0 {
		t.Fatalf("no peak RSS line:\n%s", out)
	}
	line := out[at:]
	if _, err := fmt.Sscanf(line, "  push peak RSS (in a child process, the engines in this one): %f MB for %d small moments, %f MB for %d MB of originals", &small, &n, &big, &mb); err != nil {
		t.Fatalf("no peak RSS line (%v):\n%s", err, out)
	}
	if small <= 1 || big <= 1 || n != 5 || mb != 1 {
		t.Errorf("peak RSS %v MB (%d moments), %v MB (%d MB): want figures of a real process", small, n, big, mb)
	}
}
