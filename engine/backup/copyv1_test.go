package backup

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/engine"
)

// copyV1 is a copy of format 1 (plain, before encryption), written by the
// code of that time: two moments, one of them a photo. It is kept so that
// every later Spark is tested on reading, and shipping to, a copy made
// before it.
const copyV1 = "testdata/copy-v1"

// TestWriteCopyV1 writes testdata/copy-v1 again; it runs only with
// SPARK_WRITE_COPY_V1=1, and only made sense with the format-1 code (the
// copy there was made by commit "backup: a format-1 copy kept as a test
// fixture"). It shows how the fixture was made.
func TestWriteCopyV1(t *testing.T) {
	if os.Getenv("SPARK_WRITE_COPY_V1") != "1" {
		t.Skip("writes testdata/copy-v1; set SPARK_WRITE_COPY_V1=1 to run")
	}
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 1, 2) // a note, then a photo
	e.Close()
	if err := os.RemoveAll(copyV1); err != nil {
		t.Fatal(err)
	}
	ship(t, src, mustFolder(t, copyV1), 0)
}

// TestCopyV1_Restore restores the format-1 fixture: two moments and the
// photo, fsck clean.
func TestCopyV1_Restore(t *testing.T) {
	tgt := mustFolder(t, copyV1)
	dir, res := restore(t, tgt, RestoreOptions{})
	if res.Media != 1 {
		t.Errorf("restored %d photos from the format-1 copy, want 1", res.Media)
	}
	e := openEngine(t, dir)
	defer e.Close()
	ms, _, err := e.Moments(context.Background(), 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("the restored engine reads %d moments, want 2", len(ms))
	}
	segs, err := filepath.Glob(filepath.Join(copyV1, "log", "*.seg"))
	if err != nil || len(segs) != 1 {
		t.Fatalf("segments in the fixture: %v, %v", segs, err)
	}
	seg, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil || !bytes.Equal(got, seg) {
		t.Fatalf("the restored log (%d bytes) is not the fixture's segment (%d bytes): %v", len(got), len(seg), err)
	}
}
