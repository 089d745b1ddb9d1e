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

// TestFsck_SweepsStaleUploads: spark-engine fsck removes a resumable
// upload with no progress for more than 24 hours, bytes and all, and says
// so; a recent one it leaves.
func TestFsck_SweepsStaleUploads(t *testing.T) {
	dir, _ := makeData(t)
	mk := func(id string, updated time.Time) string {
		up := filepath.Join(dir, "media", "uploads", id)
		if err := os.MkdirAll(up, 0o700); err != nil {
			t.Fatal(err)
		}
		state := fmt.Sprintf(`{"id":%q,"moment":"01J0000000000000000000000M","role":"original","length":10,"sha256":"","offset":4,"updated":%q}`, id, updated.Format(time.RFC3339Nano))
		if err := os.WriteFile(filepath.Join(up, "state.json"), []byte(state), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(up, "part"), []byte("abcd"), 0o600); err != nil {
			t.Fatal(err)
		}
		return up
	}
	stale := mk("01J0000000000000000000000A", time.Now().Add(-25*time.Hour))
	fresh := mk("01J0000000000000000000000B", time.Now().Add(-time.Hour))
	out, errOut, code := spark(t, "fsck", "--data", dir)
	if code != 0 {
		t.Fatalf("fsck: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "removed the upload of media 01J0000000000000000000000A (4 of 10 bytes)") {
		t.Errorf("fsck did not say it removed the stale upload:\n%s", out)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale upload is left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fresh, "part")); err != nil {
		t.Errorf("the recent upload was removed: %v", err)
	}
}
