package main

import (
	"bytes"
	"context"
	"flag"
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
