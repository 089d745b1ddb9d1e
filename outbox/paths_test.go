package outbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/sqlitedb/sqlitedbtest"
)

// TestDataFolders_OddNames: paths are data. In a data folder named with
// "#", "%", "?", spaces, letters outside ASCII, URI punctuation or a long
// path, the engine (its mirror is SQLite) and the outbox (SQLite, and a
// SQLite lock file) open, the outbox captures, drains to the engine and
// reopens, and nothing is written beside the folder. A "#" used to give
// "database is locked" and a stray file at the path cut before it; "%41"
// gave "unable to open database file".
func TestDataFolders_OddNames(t *testing.T) {
	ctx := context.Background()
	for _, d := range sqlitedbtest.OddDirs(t) {
		t.Run(d.Label, func(t *testing.T) {
			base := t.TempDir()
			data := filepath.Join(base, d.Rel)
			eng := enginetest.Start(t, enginetest.WithDir(filepath.Join(data, "engine")))
			dir := filepath.Join(data, "outbox")
			o, err := Open(ctx, dir, testOptions())
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if _, err := Open(ctx, dir, testOptions()); err == nil {
				t.Error("a second Open of the same folder succeeded; want ErrLocked")
			}
			e := mustCapture(t, o, writePhoto(t, filepath.Join(data, "photos"), "photo.jpg", 77))[0].Entry
			o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- o.Run(runCtx) }()
			if c := settle(t, o, 20*time.Second); c != (Counts{Done: 1}) {
				t.Fatalf("counts = %+v, want 1 done", c)
			}
			stop()
			<-done
			o.Close()
			eng.Close()

			eng = enginetest.Start(t, enginetest.WithDir(filepath.Join(data, "engine")))
			if _, err := eng.Engine.Moment(ctx, e.MomentID); err != nil {
				t.Errorf("the moment after the engine reopened: %v", err)
			}
			o = openTest(t, dir, testOptions())
			if c, err := o.Counts(ctx); err != nil || c != (Counts{Done: 1}) {
				t.Errorf("counts after reopening = %+v, %v", c, err)
			}
			for _, f := range []string{filepath.Join(dir, "outbox.db"), filepath.Join(dir, "lock")} {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			sqlitedbtest.CheckNoStray(t, base, d.Rel)
		})
	}
}
