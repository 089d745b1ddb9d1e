package server_test

import (
	"io"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/vfs"
)

// heldSyncFS holds the fsync of an upload's part file until released: a
// loaded disk, whose fsync takes longer than a preempting request waits.
type heldSyncFS struct {
	vfs.FS
	once    sync.Once
	held    chan struct{} // closed when the first fsync of a part waits
	release chan struct{}
}

func (h *heldSyncFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := h.FS.OpenFile(name, flag, perm)
	if err != nil || !strings.HasSuffix(name, "part") {
		return f, err
	}
	return &heldSyncFile{File: f, fs: h}, nil
}

type heldSyncFile struct {
	vfs.File
	fs *heldSyncFS
}

func (f *heldSyncFile) Sync() error {
	f.fs.once.Do(func() {
		close(f.fs.held)
		<-f.fs.release
	})
	return f.File.Sync()
}

// A request preempted while the engine is still busy with a stretch it
// read (its fsync slower than the preempting request's grace, as on a
// loaded disk) keeps the bytes that had reached the engine by then: the
// client is told an offset past all it sent, and sends none of it again.
// CI's weak-link test of the outbox once sent 2 MiB twice.
func TestUploadPreemptedKeepsWhatArrived(t *testing.T) {
	hs := &heldSyncFS{held: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(hs.release) }) }
	t.Cleanup(release)
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		hs.FS = vfs.Default(c.FS)
		c.FS = hs
	}))
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, media.UploadSyncEvery+300_000)
	id := newID()
	startUpload(t, e, id, m.ID, data, 0).want(t, http.StatusCreated, nil)

	// The append sends a stretch and more, then waits with its connection
	// open: the engine's fsync of the stretch is held, and the rest lies
	// in its socket.
	sent := media.UploadSyncEvery + 200_000
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("PATCH", e.URL+uploadPath(id), pr)
		req.Header.Set("Authorization", "Bearer "+e.Token)
		req.Header.Set("Content-Type", api.PartialUploadType)
		req.Header.Set("Upload-Offset", "0")
		req.Header.Set("Upload-Complete", "?1")
		req.ContentLength = int64(len(data))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	if _, err := pw.Write(data[:sent]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-hs.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the engine never synced the first stretch")
	}

	// A resume asks where the upload stands: it waits out its grace, ends
	// the append, and is answered once the append has kept what it had.
	offset := make(chan int64, 1)
	go func() {
		n, _ := offsetOf(t, e, id)
		offset <- n
	}()
	time.Sleep(3 * time.Second) // past the grace: the append is ended
	release()
	var got int64
	select {
	case got = <-offset:
	case <-time.After(30 * time.Second):
		t.Fatal("no answer to the offset")
	}
	pw.CloseWithError(io.ErrClosedPipe)
	if s := <-done; s == http.StatusCreated {
		t.Fatal("the preempted append completed the upload")
	}
	if got != int64(sent) {
		t.Errorf("the engine holds %d bytes after the preempt, want all %d sent (the %d past the stretch were thrown away)",
			got, sent, int64(sent)-got)
	}
	appendPart(t, e, id, got, data[got:], true).want(t, http.StatusCreated, nil)
}
