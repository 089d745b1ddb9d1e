package engine

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/internal/poll"
)

// quiet is a logger for tests that only fails loudly.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// option changes a test engine's Config.
type option func(*Config)

func withSeats(seats ...pippa.Config) option {
	return func(c *Config) { c.Seats = append(c.Seats, seats...) }
}

// openEngine opens an engine on dir, closed at the end of the test. The
// environment's seat is cleared so that only the test's seats count.
func openEngine(tb testing.TB, dir string, opts ...option) *Engine {
	tb.Helper()
	e, err := tryOpen(tb, dir, opts...)
	if err != nil {
		tb.Fatalf("Open(%s): %v", dir, err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func tryOpen(tb testing.TB, dir string, opts ...option) (*Engine, error) {
	tb.Helper()
	tb.Setenv(pippa.EnvURL, "")
	cfg := Config{Dir: dir, Logger: quiet, RetryBackoff: 5 * time.Millisecond}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Open(ctx, cfg)
}

func ctxT(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// opCounts counts the records of the log by op name, scanning the log.
func opCounts(tb testing.TB, e *Engine) map[string]int {
	tb.Helper()
	counts := map[string]int{}
	err := e.log.Scan(ctxT(tb), 0, func(r oplog.Record) error {
		counts[r.Op]++
		return nil
	})
	if err != nil {
		tb.Fatalf("scan the log: %v", err)
	}
	return counts
}

// wantOps checks the number of log lines of each op name; ops not named
// must not appear at all.
func wantOps(tb testing.TB, e *Engine, want map[string]int) {
	tb.Helper()
	got := opCounts(tb, e)
	for op, n := range want {
		if n == 0 {
			delete(want, op)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		tb.Errorf("op lines (-want +got):\n%s", diff)
	}
}

// wantCode checks that err is a contract error with that code.
func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := api.ErrorCode(err); got != code {
		tb.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

func mustCreate(tb testing.TB, e *Engine, req api.CreateMomentRequest) *api.Moment {
	tb.Helper()
	if req.Kind == "" {
		req.Kind = api.KindPhoto
	}
	mo, _, err := e.CreateMoment(ctxT(tb), req)
	if err != nil {
		tb.Fatalf("CreateMoment(%+v): %v", req, err)
	}
	return mo
}

// smallJPEG makes a small real JPEG, different for each seed.
func smallJPEG(tb testing.TB, seed int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 12))
	for y := range 12 {
		for x := range 16 {
			img.Set(x, y, color.RGBA{uint8(x * 16), uint8(y * 20), uint8(seed * 37), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func mustPut(tb testing.TB, e *Engine, id, momentID, role string, body []byte) *api.Media {
	tb.Helper()
	md, _, err := e.PutMedia(ctxT(tb), PutMedia{ID: id, MomentID: momentID, Role: role, ContentType: "image/jpeg", Body: bytes.NewReader(body)})
	if err != nil {
		tb.Fatalf("PutMedia(%s): %v", id, err)
	}
	return md
}

// waitTurn waits until turn id is finished or failed and returns it.
func waitTurn(tb testing.TB, e *Engine, id string) *api.Turn {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		t, err := e.Turn(ctxT(tb), id)
		if err != nil {
			tb.Fatalf("Turn(%s): %v", id, err)
		}
		if t.Status == api.TurnFinished || t.Status == api.TurnFailed {
			return t
		}
		if time.Now().After(deadline) {
			tb.Fatalf("turn %s still %s after 20s", id, t.Status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitFor polls cond until it holds, for at most 10s.
// atOnce runs fn(0) … fn(n-1) on n goroutines released together, and
// waits for them.
func atOnce(n int, fn func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			fn(i)
		})
	}
	close(start)
	wg.Wait()
}

func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	poll.Until(tb, 10*time.Second, what, cond)
}

// dumpMirror dumps the mirror file at path, table by table.
func dumpMirror(tb testing.TB, path string) map[string][]string {
	tb.Helper()
	m, err := mirror.Open(ctxT(tb), path, mirror.Options{})
	if err != nil {
		tb.Fatalf("open mirror %s: %v", path, err)
	}
	defer m.Close()
	d, err := m.Dump(ctxT(tb))
	if err != nil {
		tb.Fatalf("dump %s: %v", path, err)
	}
	return d
}

// copyFile copies a file, for tests that keep an old state aside.
func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// blobPath is where the media store keeps the blob of sha.
func blobPath(tb testing.TB, e *Engine, sha string) string {
	tb.Helper()
	p, err := e.media.Path(sha)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// walkFiles calls fn for every regular file under dir.
func walkFiles(dir string, fn func(string)) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fn(p)
		}
		return nil
	})
}

// copyFixture copies the data folder testdata/name, written by an older
// engine (see testdata/README.md), into a fresh folder and returns it:
// tests open the copy, never the fixture.
func copyFixture(tb testing.TB, name string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "data")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// wantMigratedIsFold checks that the mirror of the (closed) engine folder
// dir, migrated from an older main's and written on since, equals a fold
// of its log: Rebuild makes the same rows.
func wantMigratedIsFold(tb testing.TB, dir string) {
	tb.Helper()
	live := dumpMirror(tb, filepath.Join(dir, MirrorFile))
	if err := Rebuild(ctxT(tb), dir, quiet); err != nil {
		tb.Fatal(err)
	}
	if diff := cmp.Diff(live, dumpMirror(tb, filepath.Join(dir, MirrorFile))); diff != "" {
		tb.Errorf("main's mirror, migrated, differs from the fold of its log (-migrated +rebuilt):\n%s", diff)
	}
}
