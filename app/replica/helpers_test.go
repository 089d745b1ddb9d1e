package replica

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/internal/poll"
	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/outbox/photo/phototest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func ctxT(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// writePhoto writes a generated JPEG, different for each seed.
func writePhoto(tb testing.TB, path string, seed uint64) {
	tb.Helper()
	if err := os.WriteFile(path, phototest.JPEG(64, 48, seed), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// capture makes n photos safe in an outbox in dataDir/outbox and drains
// them to eng, then waits for every turn to finish.
func capture(tb testing.TB, eng *enginetest.Engine, dataDir string, n int, seed uint64) {
	tb.Helper()
	ctx := ctxT(tb)
	src := tb.TempDir()
	for i := range n {
		writePhoto(tb, filepath.Join(src, fmt.Sprintf("p%04d.jpg", i)), seed+uint64(i))
	}
	o, err := outbox.Open(ctx, filepath.Join(dataDir, "outbox"), outbox.Options{
		Logger:      quiet,
		BackoffBase: 5 * time.Millisecond,
		BackoffCap:  50 * time.Millisecond,
		Target:      outbox.Target{URL: eng.URL, Token: eng.Token},
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer o.Close()
	before, _ := o.Counts(ctx)
	for _, r := range o.Capture(ctx, []string{src}, outbox.CaptureOptions{}) {
		if r.Err != nil {
			tb.Fatalf("capture %s: %v", r.Path, r.Err)
		}
	}
	dctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { o.Run(dctx) })
	waitFor(tb, "the outbox to deliver every capture", func() bool {
		c, err := o.Counts(ctx)
		return err == nil && c.Done == before.Done+n
	})
	stop()
	wg.Wait()
	waitTurns(tb, eng)
}

// waitTurns waits until every turn the engine started has finished.
func waitTurns(tb testing.TB, eng *enginetest.Engine) {
	tb.Helper()
	waitFor(tb, "every turn to finish", func() bool {
		return eng.OpCount(tb, api.OpTurnFinish) >= eng.OpCount(tb, api.OpTurnStart)
	})
}

// extras writes one of each other kind of op through the client: an edit,
// a delete, a note without a copy, phrases kept and removed, a job and a
// quick recall, so that every table of the mirror has rows.
func extras(tb testing.TB, eng *enginetest.Engine, tag string) {
	tb.Helper()
	ctx := ctxT(tb)
	c := client.New(eng.URL, eng.Token, eng.Client())
	ms, _, err := c.Moments(ctx, 3, "")
	if err != nil || len(ms) < 3 {
		tb.Fatalf("moments: %v (%d)", err, len(ms))
	}
	caption := tag + " edited"
	if _, _, err := c.EditMoment(ctx, ms[0].ID, api.EditMomentRequest{Caption: &caption}); err != nil {
		tb.Fatal(err)
	}
	if _, err := c.DeleteMoment(ctx, ms[1].ID); err != nil {
		tb.Fatal(err)
	}
	if _, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ClientRequestID: tag + "-note", Kind: api.KindNote, Caption: tag + " a note"}); err != nil {
		tb.Fatal(err)
	}
	for _, text := range []string{tag + " call the bank", tag + " buy stamps"} {
		if _, _, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: text, MomentID: ms[2].ID}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := c.RemovePhrase(ctx, "keep:"+tag+" buy stamps"); err != nil {
		tb.Fatal(err)
	}
	if _, _, err := c.StartJob(ctx, ms[2].ID, tag+"-job"); err != nil {
		tb.Fatal(err)
	}
	if _, _, _, err := c.StartRecall(ctx, tag+"-recall"); err != nil {
		tb.Fatal(err)
	}
	waitTurns(tb, eng)
}

func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	poll.Until(tb, 60*time.Second, what, cond)
}

func openReplica(tb testing.TB, dir string, opts Options) *Replica {
	tb.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	r, err := Open(ctxT(tb), dir, opts)
	if err != nil {
		tb.Fatalf("Open(%s): %v", dir, err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

func clientOf(eng *enginetest.Engine) *client.Client {
	return client.New(eng.URL, eng.Token, eng.Client())
}

// served is what the engine serves: its live moments (newest first, as
// JSON) and the bytes of their small copies by SHA-256.
type served struct {
	moments []byte
	copies  map[string][]byte
}

func serve(tb testing.TB, eng *enginetest.Engine) served {
	tb.Helper()
	all := eng.Moments(tb)
	s := served{copies: map[string][]byte{}}
	for _, m := range all {
		if m.Copy != nil {
			s.copies[m.Copy.SHA256] = eng.Media(tb, m.Copy.ID)
		}
	}
	var err error
	if s.moments, err = json.Marshal(all); err != nil {
		tb.Fatal(err)
	}
	return s
}

// engineMirror opens a stopped engine's own mirror.
func engineMirror(tb testing.TB, dir string) *mirror.DB {
	tb.Helper()
	m, err := mirror.Open(ctxT(tb), filepath.Join(dir, engine.MirrorFile), mirror.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}

// sameAsEngine fails unless the replica equals the engine's mirror table
// by table (the engine is stopped).
func sameAsEngine(tb testing.TB, r *Replica, engineDir string) {
	tb.Helper()
	m := engineMirror(tb, engineDir)
	diffs, err := r.Diff(ctxT(tb), m, 5)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range diffs {
		tb.Errorf("replica differs from the engine's mirror: %s", d)
	}
	m.Close()
}

// copyDir copies a stopped engine's folder (a backup, restored).
func copyDir(tb testing.TB, from, to string) {
	tb.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// dump is the replica's mirror as text, to show it unchanged.
func dump(tb testing.TB, r *Replica) map[string][]string {
	tb.Helper()
	db := r.mirror()
	defer r.dbMu.RUnlock()
	d, err := db.Dump(ctxT(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// urlEngine is an engine known by its address alone (a child process's).
type urlEngine struct{ url, token string }

func (u *urlEngine) client() *client.Client { return client.New(u.url, u.token, nil) }
