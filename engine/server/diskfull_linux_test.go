package server_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// mountTmpfs mounts a tmpfs of size bytes for the test, or skips it when
// this process may not mount (not root, or a container without the right).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); TestDiskFull_FileSizeLimit covers the same ground", err)
	}
	// Registered after TempDir's own cleanup, so it runs first.
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// limitFileSize makes writes past max bytes in any file of this process
// fail with EFBIG (Go ignores SIGXFSZ), as a full disk fails them, until
// the returned function lifts the limit. The test must not run in parallel
// with others.
func limitFileSize(t *testing.T, max int64) (lift func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: uint64(max), Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	lifted := false
	lift = func() {
		if !lifted {
			lifted = true
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(lift)
	return lift
}

// TestDiskFull_FileSizeLimit runs the disk-full story without mounting
// anything: a file size limit on this process makes the engine's writes
// fail the way a full disk does. Two cases: the log's own write fails
// (nothing of the op is kept, its writer gets 503), and the log's write
// succeeds but the mirror's fails (the op is acknowledged at its fsync;
// reads that must see it get 503 until the mirror folds it on recovery,
// and the writer's retry finds it).
func TestDiskFull_FileSizeLimit(t *testing.T) {
	t.Run("LogWriteFails", func(t *testing.T) {
		e := enginetest.Start(t, enginetest.WithoutSeat())
		var lift func()
		diskFullScenario(t, e, refused, func() {
			lift = limitFileSize(t, fileSize(t, e, "ops.log"))
		}, func() { lift() }, "file too large")
	})
	t.Run("UploadFails", func(t *testing.T) {
		// The media store's write fails; the log is untouched, so a test
		// write alone heals the engine.
		e := enginetest.Start(t, enginetest.WithoutSeat())
		m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
		// A read waits for the create's fold (it was answered at its
		// fsync), so that only the upload's write fails.
		call(t, e, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, nil)
		var largest int64
		for _, f := range []string{"ops.log", "mirror.db", "mirror.db-wal", "mirror.db-shm"} {
			largest = max(largest, fileSize(t, e, f))
		}
		lift := limitFileSize(t, largest+4096)
		photo := bytes.Repeat([]byte{7}, 256<<10)
		id := newID()
		wantUnavailable(t, call(t, e, "PUT", mediaPath(id, m.ID, "copy"), photo, "Content-Type", "image/jpeg"))
		if h := health(t, e); h.OK || !strings.Contains(h.Reason, "file too large") {
			t.Fatalf("health after a failed upload: %+v", h)
		}
		call(t, e, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, nil)
		lift()
		waitHealthy(t, e)
		call(t, e, "PUT", mediaPath(id, m.ID, "copy"), photo, "Content-Type", "image/jpeg").want(t, http.StatusCreated, nil)
		if got := call(t, e, "GET", "/v1/media/"+id, nil).Body; !bytes.Equal(got, photo) {
			t.Fatalf("the upload sent again after recovery reads back %d bytes, want %d", len(got), len(photo))
		}
		// No temp file of the failed upload is left behind.
		left, err := os.ReadDir(filepath.Join(e.Dir, "media", "tmp"))
		if err != nil || len(left) != 0 {
			t.Fatalf("media/tmp holds %v (%v) after the failed upload", left, err)
		}
	})
	t.Run("MirrorWriteFails", func(t *testing.T) {
		e := enginetest.Start(t, enginetest.WithoutSeat())
		var lift func()
		diskFullScenario(t, e, acknowledged, func() {
			log := fileSize(t, e, "ops.log")
			wal := fileSize(t, e, "mirror.db-wal")
			limit := log + 8<<10
			if wal <= limit {
				t.Skipf("the mirror's WAL (%d bytes) is not larger than the log (%d) by enough to fail it alone", wal, log)
			}
			lift = limitFileSize(t, limit)
		}, func() { lift() }, "mirror")
	})
}

// TestDiskFull_Tmpfs fills a small tmpfs under a real engine: after the
// disk filled and space was freed, every write used to get 500 while
// /v1/health said ok. Needs root (to mount); TestDiskFull_FileSizeLimit
// covers the same ground without.
func TestDiskFull_Tmpfs(t *testing.T) {
	dir := mountTmpfs(t, 4<<20)
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(dir))
	filler := filepath.Join(dir, "filler")
	diskFullScenario(t, e, either, func() {
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := f.Write(buf); err != nil {
				break // the disk is full
			}
		}
	}, func() {
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
	}, "the disk is full")
}
