package replica

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/engine/mirror"
)

// A replica.db of another format, or of another mirror schema, is replaced
// by an empty replica (nothing in it is the only copy of anything).
func TestOpen_ReplacesAnotherFormat(t *testing.T) {
	for name, spoil := range map[string]func(t *testing.T, path string){
		"replica format": func(t *testing.T, path string) {
			m, err := mirror.Open(context.Background(), path, mirror.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if err := m.ApplyWith(context.Background(), nil, func(exec mirror.Exec) error {
				return setState(exec, "format", "99")
			}); err != nil {
				t.Fatal(err)
			}
		},
		"mirror schema": func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r := openReplica(t, dir, Options{})
			if err := r.mirror().ApplyWith(ctxT(t), nil, func(exec mirror.Exec) error {
				return setState(exec, "engine", "01JENGINE00000000000000000")
			}); err != nil {
				t.Fatal(err)
			}
			r.dbMu.RUnlock()
			r.Close()
			spoil(t, filepath.Join(dir, DBFile))
			r = openReplica(t, dir, Options{})
			st, err := r.State(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if st != (State{}) {
				t.Errorf("state after reopening a replica of another format = %+v, want an empty replica", st)
			}
		})
	}
}
