package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"
)

// TestResumableBench runs the resumable benchmark small (3 MB, a link cut
// every 512 KiB, one round) and checks that both links' figures come out
// beside the file's size, with PUT's for the record.
func TestResumableBench(t *testing.T) {
	for name, v := range map[string]string{"resume-mb": "3", "resume-cut-kib": "512", "resume-rounds": "1", "dir": t.TempDir()} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set(name, old) })
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"resumable"}, &out); err != nil {
		t.Fatalf("resumable bench: %v\n%s", err, out.String())
	}
	for _, want := range []string{"a 3 MB original (3000000 bytes)", "unbroken link:", "cut every  512 KiB:", "x the file) in", "goal <= 1.2x: meets", "PUT over the cut link:   5 tries", "stored: false", "load average"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
