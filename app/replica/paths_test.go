package replica

import (
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/sqlitedb/sqlitedbtest"
)

// TestOpen_OddDataFolders: paths are data, for the replica too. In a data
// folder named with "#", "%", "?", spaces, letters outside ASCII, URI
// punctuation or a long path, the replica opens (its lock and its mirror
// are SQLite), syncs from a real engine, refuses a second Open, reopens
// with what it synced, and nothing is written beside the folder. Its lock's
// DSN, once built by hand, cut a "#" folder's lock file short.
func TestOpen_OddDataFolders(t *testing.T) {
	for _, d := range sqlitedbtest.OddDirs(t) {
		t.Run(d.Label, func(t *testing.T) {
			base := t.TempDir()
			data := filepath.Join(base, d.Rel)
			eng := enginetest.Start(t, enginetest.WithDir(filepath.Join(data, "engine")))
			capture(t, eng, data, 2, 9100)
			dir := filepath.Join(data, "replica")
			r := openReplica(t, dir, Options{})
			if _, err := Open(ctxT(t), dir, Options{Logger: quiet}); err == nil {
				t.Error("a second Open of the same folder succeeded; want ErrLocked")
			}
			res, err := r.Sync(ctxT(t), clientOf(eng))
			if err != nil || !res.CaughtUp() || res.Copies != 2 {
				t.Fatalf("sync = %+v, %v; want caught up with 2 copies", res, err)
			}
			want, err := r.State(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			eng.Close()
			r = openReplica(t, dir, Options{})
			got, err := r.State(ctxT(t))
			if err != nil || got.Seq != want.Seq || got.Seq == 0 || got.Engine != want.Engine {
				t.Errorf("state after reopening = %+v, %v; want %+v", got, err, want)
			}
			ms, err := r.Moments(ctxT(t))
			if err != nil || len(ms) != 2 {
				t.Errorf("moments after reopening: %d, %v; want 2", len(ms), err)
			}
			r.Close()
			sqlitedbtest.CheckNoStray(t, base, d.Rel)
		})
	}
}
