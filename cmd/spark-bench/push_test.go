package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// TestPushBench runs the push benchmark small (20 moments, 1 MB, one
// round) and checks that both figures come out beside the drain's.
func TestPushBench(t *testing.T) {
	for name, v := range map[string]string{"push-small": "20", "push-big-mb": "1", "push-rounds": "1", "dir": t.TempDir()} {
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
	for _, want := range []string{"20 small moments: drain", "moments/s", "1 MB of originals: drain", "MB/s", "of the drain, goal >= 80%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPushBench_PeakRSS: the push runs in a child process and its peak
// RSS comes out, for the small moments and for the originals.
func TestPushBench_PeakRSS(t *testing.T) {
	for name, v := range map[string]string{"push-small": "5", "push-big-mb": "1", "push-rounds": "1", "dir": t.TempDir()} {
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
	var small, big float64
	var n, mb int
	at := strings.Index(out.String(), "  push peak RSS")
	if at < 0 {
		t.Fatalf("no peak RSS line:\n%s", out.String())
	}
	line := out.String()[at:]
	if _, err := fmt.Sscanf(line, "  push peak RSS (in a child process, the engines in this one): %f MB for %d small moments, %f MB for %d MB of originals", &small, &n, &big, &mb); err != nil {
		t.Fatalf("no peak RSS line (%v):\n%s", err, out.String())
	}
	if small <= 1 || big <= 1 || n != 5 || mb != 1 {
		t.Errorf("peak RSS %v MB (%d moments), %v MB (%d MB): want figures of a real process", small, n, big, mb)
	}
}
