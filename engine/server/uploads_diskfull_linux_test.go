package server_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestUploadDiskFull: a part that meets a full disk is 503 unavailable,
// the engine stops taking writes (a new upload too), the bytes it held stay
// counted and whole, and once space is freed the rest is appended from the
// offset the engine gives and the file is stored whole.
func TestUploadDiskFull(t *testing.T) {
	dir := mountTmpfs(t, 12<<20)
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(dir))
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, 6<<20)
	id := newID()
	startUpload(t, e, id, m.ID, data, 1<<20).want(t, http.StatusCreated, nil)

	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break // the disk is full
		}
	}
	f.Close()
	// The part meets the full disk in the middle of its body: the engine
	// answers 503 and closes the connection rather than read megabytes it
	// can't keep, so the client may see the close before the answer. Both
	// leave it to ask for the offset; the next request gets the 503.
	if a, err := send(e, "PATCH", uploadPath(id), data[1<<20:], "Expect", "100-continue", "Content-Type", api.PartialUploadType,
		"Upload-Offset", strconv.Itoa(1<<20), "Upload-Complete", "?1"); err == nil {
		wantUnavailable(t, a)
	} else {
		t.Logf("the part that met the full disk: %v", err)
	}
	if h := health(t, e); h.OK {
		t.Fatalf("health after a part met a full disk: %+v", h)
	}
	wantUnavailable(t, startUpload(t, e, newID(), m.ID, data, 0))
	off, complete := offsetOf(t, e, id)
	if off < 1<<20 || complete {
		t.Fatalf("offset %d (complete %v) after the disk filled, want at least %d held", off, complete, 1<<20)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, e)
	off, _ = offsetOf(t, e, id)
	appendPart(t, e, id, off, data[off:], true).want(t, http.StatusCreated, nil)
	if !bytes.Equal(e.Media(t, id), data) {
		t.Fatal("the stored bytes are not the file")
	}
}
