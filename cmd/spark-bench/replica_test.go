package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/internal/racebuild"
)

// TestReplicaBench runs the replica benchmark on a small log and checks its
// lines come out (the child process folds every op, or the bench fails).
func TestReplicaBench(t *testing.T) {
	racebuild.Heavy(t, benchRun)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"replica", "--replica-ops", "3000", "--dir", t.TempDir()}, &out); err != nil {
		t.Fatalf("replica: %v\n%s", err, out.String())
	}
	for _, want := range []string{"engine rebuild", "replica sync", "replica / rebuild", "peak RSS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
