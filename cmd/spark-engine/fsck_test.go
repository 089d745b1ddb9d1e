package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFsck_SweepsAnEarlierFsck: spark-engine fsck removes the temporary
// folder a killed fsck left in the data folder two days ago, says so, and
// leaves no folder of its own.
func TestFsck_SweepsAnEarlierFsck(t *testing.T) {
	dir, _ := makeData(t)
	left := filepath.Join(dir, fmt.Sprintf("fsck-4242-%d-123456", time.Now().Add(-48*time.Hour).Unix()))
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "live-mirror.db"), []byte("snapshot"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := spark(t, "fsck", "--data", dir)
	if code != 0 {
		t.Fatalf("fsck: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "removed "+left+", left by an earlier fsck") {
		t.Errorf("fsck did not say it removed the earlier fsck's folder:\n%s", out)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "fsck-") {
			t.Errorf("%s is left in the data folder", e.Name())
		}
	}
}
