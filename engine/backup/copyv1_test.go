package backup

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if b, err := os.ReadFile(filepath.Join(copyV1, ManifestName)); err != nil || !bytes.Contains(b, []byte(`"format": 1,`)) {
		t.Fatalf("this Spark writes format %d, not 1: the fixture is now wrong; restore it with git checkout, and write it with the code of commit 14f5bfc", Format)
	}
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

// TestCopyV1_ShipTo: a folder restored from a format-1 copy, with a key,
// ships on to that copy as it is, plain (a copy is never rewritten),
// saying once that it is not encrypted; a restore of it holds the new
// ops.
func TestCopyV1_ShipTo(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(copyV1)); err != nil {
		t.Fatal(err)
	}
	before := objects(t, root)
	dir, _ := restore(t, mustFolder(t, copyV1), RestoreOptions{Key: testKey})
	e := openEngine(t, dir)
	capture(t, e, 10, 4)
	e.Close()
	want, last := logPrefixBytes(t, dir, 0)
	var logged bytes.Buffer
	sh := &Shipper{Dir: dir, Target: mustFolder(t, root), Key: testKey, Logger: slog.New(slog.NewTextHandler(&logged, nil))}
	for range 2 {
		if _, err := sh.Ship(context.Background()); err != nil {
			t.Fatal(err)
		}
		sh.cur = nil // a full pass again, which reads the manifest again
	}
	if n := strings.Count(logged.String(), "this copy is not encrypted"); n != 1 {
		t.Errorf("the Shipper said %d times that the copy is plain, want once:\n%s", n, logged.String())
	}
	after := objects(t, root)
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("%s changed", name)
		}
	}
	added := 0
	for name, b := range after {
		if _, old := before[name]; !old {
			added++
			if bytes.HasPrefix(b, []byte("age-encryption.org")) {
				t.Errorf("%s, added to a plain copy, is encrypted", name)
			}
		}
	}
	if added < 3 {
		t.Fatalf("%d objects added to the format-1 copy, want a segment and two photos", added)
	}
	got, res := restore(t, mustFolder(t, root), RestoreOptions{})
	b, err := os.ReadFile(filepath.Join(got, engine.LogFile))
	if err != nil || !bytes.Equal(b, want) || res.LastSeq != last {
		t.Fatalf("the restore of the shipped-to copy holds %d bytes through seq %d, want %d through %d: %v", len(b), res.LastSeq, len(want), last, err)
	}
}

// endless is a store that answers every Get of a photo with its bytes
// and then zeros without end, as a hostile or broken store might.
type endless struct{ Target }

func (e endless) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	rc, err := e.Target.Get(ctx, name)
	if err != nil || !strings.HasPrefix(name, mediaPrefix) {
		return rc, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(rc, zeros{}), rc}, nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestRestore_EndlessObject: a store that sends more bytes for a photo
// than the log says it holds is refused at once, not read to the end of
// the disk: a plain (format-1) copy, where no decryption ends the stream.
func TestRestore_EndlessObject(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Restore(ctx, endless{mustFolder(t, copyV1)}, filepath.Join(t.TempDir(), "r"), RestoreOptions{Logger: quiet})
	if err == nil || ctx.Err() != nil {
		t.Fatalf("Restore from a store sending endless bytes = %v (ctx %v); want it refused at once", err, ctx.Err())
	}
	t.Logf("refused: %v", err)
}
