package client_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/media"
)

// The kill tests' engines run in child processes (enginetest.StartChild).
func init() { enginetest.ChildMain() }

// TestUploadMedia_EngineKilled: the engine is SIGKILLed in the middle of
// an original's upload, then started again on its folder; the next call
// resumes from the bytes the engine had acknowledged, and the original is
// stored whole, once, and fsck finds the folder sound.
func TestUploadMedia_EngineKilled(t *testing.T) {
	k := startKillable(t, 20<<20)
	dir, child, ctx, c, data, sum, momentID, id := k.dir, k.child, k.ctx, k.c, k.data, k.sum, k.momentID, k.id
	addr := child.Addr()
	var acked int64
	killed := make(chan struct{})
	u := client.UploadMedia{ID: id, MomentID: momentID, Role: api.RoleOriginal, From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:],
		Progress: func(held int64) {
			acked = held
			if held >= client.PartSize && child != nil {
				// In the middle of the second part.
				go func(ch *enginetest.Child) {
					time.Sleep(30 * time.Millisecond)
					ch.Kill()
					close(killed)
				}(child)
				child = nil
			}
		}}
	if _, _, err := c.UploadMedia(ctx, u); err == nil {
		t.Fatal("the upload finished although its engine was killed in the middle")
	}
	<-killed
	t.Logf("killed with %d bytes acknowledged", acked)
	again := enginetest.StartChild(t, dir, addr)
	var first int64 = -1
	u.Progress = func(held int64) {
		if first < 0 {
			first = held
		}
	}
	c2 := client.New(again.URL, again.Token, nil)
	m, created, err := c2.UploadMedia(ctx, u)
	if err != nil || !created || m.Size != int64(len(data)) {
		t.Fatalf("after the restart: %+v created %v, %v", m, created, err)
	}
	if first < acked {
		t.Fatalf("the second call started at %d bytes, below the %d acknowledged before the kill", first, acked)
	}
	t.Logf("the second call resumed at %d bytes", first)
	rc, err := c2.GetMedia(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the stored original is not the file (%d bytes, %v)", len(got), err)
	}
	puts := 0
	ops, _, err := c2.Ops(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Op == api.OpMediaPut {
			puts++
		}
	}
	if puts != 1 {
		t.Fatalf("%d media.put ops, want 1", puts)
	}
	var out bytes.Buffer
	if ok, err := engine.Fsck(ctx, dir, &out); !ok || err != nil {
		t.Fatalf("fsck: %v\n%s", err, out.String())
	}
}

// gatedReader serves data, but a read reaching past gate waits until
// open is closed (the file's bytes after gate are "not there yet"): a
// part is sent up to gate and then stalls, in the middle.
type gatedReader struct {
	data []byte
	gate int64
	open chan struct{}
}

func (g *gatedReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(g.data)) {
		return 0, io.EOF
	}
	select {
	case <-g.open:
	default:
		if off >= g.gate {
			<-g.open
		} else if off+int64(len(p)) > g.gate {
			// Up to the gate now; the transport asks again for the rest.
			return copy(p, g.data[off:g.gate]), nil
		}
	}
	n := copy(p, g.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestUploadMedia_EngineKilledMidPart: the engine is SIGKILLed while a
// large part is half received; the bytes it made durable before the kill
// are kept: after a restart the offset retrieval reports them (at least
// every whole media.UploadSyncEvery received before the kill), the next
// call sends only the rest, and the original is stored whole with its
// SHA-256.
func TestUploadMedia_EngineKilledMidPart(t *testing.T) {
	k := startKillable(t, 12<<20)
	dir, child, ctx, c, data, sum, momentID, id := k.dir, k.child, k.ctx, k.c, k.data, k.sum, k.momentID, k.id
	// The first part is client.PartSize bytes; it stalls after gate.
	gate := int64(5<<20 + 123_456)
	if gate >= client.PartSize {
		t.Fatalf("the gate (%d) must fall inside the first part (%d bytes)", gate, client.PartSize)
	}
	src := &gatedReader{data: data, gate: gate, open: make(chan struct{})}
	u := client.UploadMedia{ID: id, MomentID: momentID, Role: api.RoleOriginal, From: src, Size: int64(len(data)), SHA256: sum[:]}
	first := make(chan error, 1)
	go func() {
		_, _, err := c.UploadMedia(ctx, u)
		first <- err
	}()
	// The engine has received the part up to the gate once its part file
	// holds those bytes (written, not necessarily durable).
	part := filepath.Join(dir, engine.MediaDir, media.UploadsDir, id, "part")
	deadline := time.Now().Add(60 * time.Second)
	var seen int64
	for {
		if fi, err := os.Stat(part); err == nil && fi.Size() >= gate {
			seen = fi.Size()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine did not receive the first %d bytes of the part", gate)
		}
		time.Sleep(10 * time.Millisecond)
	}
	child.Kill()
	close(src.open)
	if err := <-first; err == nil {
		t.Fatal("the upload finished although its engine was killed in the middle")
	}
	// A byte past a multiple of UploadSyncEvery is written only once the
	// bytes before it are durable and counted.
	durable := (seen - 1) / media.UploadSyncEvery * media.UploadSyncEvery

	again := enginetest.StartChild(t, dir, "")
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, again.URL+api.UploadsPath+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+again.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	offset, err := strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
	if resp.StatusCode != http.StatusNoContent || err != nil {
		t.Fatalf("offset retrieval after the restart: %d, Upload-Offset %q", resp.StatusCode, resp.Header.Get("Upload-Offset"))
	}
	t.Logf("killed with %d bytes of the part received; after the restart the engine holds %d (%d lost)", seen, offset, seen-offset)
	if offset <= 0 || offset < durable {
		t.Fatalf("after the restart the engine holds %d bytes; %d were received before the kill, and at least %d of them should have been durable", offset, seen, durable)
	}

	var resumed int64 = -1
	u.Progress = func(held int64) {
		if resumed < 0 {
			resumed = held
		}
	}
	c2 := client.New(again.URL, again.Token, nil)
	m, created, err := c2.UploadMedia(ctx, u)
	if err != nil || !created {
		t.Fatalf("after the restart: %+v created %v, %v", m, created, err)
	}
	if resumed != offset {
		t.Fatalf("the next call started at %d bytes, not at the engine's %d", resumed, offset)
	}
	if want := hex.EncodeToString(sum[:]); m.SHA256 != want || m.Size != int64(len(data)) {
		t.Fatalf("stored %d bytes with SHA-256 %s; want %d bytes, %s", m.Size, m.SHA256, len(data), want)
	}
	rc, err := c2.GetMedia(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || sha256.Sum256(got) != sum {
		t.Fatalf("the stored original is not the file (%d bytes, %v)", len(got), err)
	}
}

// killable is a child engine (unix only: the tests SIGKILL it) with a
// photo moment made and the random original of size bytes it expects.
type killable struct {
	dir          string
	child        *enginetest.Child
	ctx          context.Context
	c            *client.Client
	data         []byte
	sum          [sha256.Size]byte
	momentID, id string
}

func startKillable(t *testing.T, size int) killable {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL of a child engine: unix")
	}
	k := killable{dir: t.TempDir(), ctx: context.Background(), data: make([]byte, size), momentID: newID(), id: newID()}
	k.child = enginetest.StartChild(t, k.dir, "")
	k.c = client.New(k.child.URL, k.child.Token, nil)
	rand.Read(k.data)
	k.sum = sha256.Sum256(k.data)
	if _, _, err := k.c.CreateMoment(k.ctx, api.CreateMomentRequest{ID: k.momentID, Kind: api.KindPhoto, OriginalID: k.id}); err != nil {
		t.Fatal(err)
	}
	return k
}
