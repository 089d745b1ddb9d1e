package outbox

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// The outbox database's schema has a version, kept in PRAGMA
// user_version: schema.sql is version 0 (the first outbox), and each file
// migrations/NNN_name.sql takes it from version NNN-1 to NNN. Open brings an
// older outbox up to date, one migration per transaction, and refuses one
// written by a newer Spark rather than misread it.

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the migrations' SQL by version (index 0 unused).
func migrations() ([]string, error) {
	ents, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	out := []string{""}
	for i, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n != i+1 {
			return nil, fmt.Errorf("outbox migration %s: want number %03d", e.Name(), i+1)
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// SchemaVersion is the outbox database version this Spark writes.
var SchemaVersion = func() int {
	m, err := migrations()
	if err != nil {
		panic(err)
	}
	return len(m) - 1
}()

// migrate creates the schema in a new database and brings an older one up
// to SchemaVersion.
func migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("the outbox was written by a newer Spark (database version %d; this Spark knows up to %d): update Spark to open it", v, SchemaVersion)
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return err
	}
	ms, err := migrations()
	if err != nil {
		return err
	}
	for n := v + 1; n <= SchemaVersion; n++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, ms[n])
		if err == nil {
			_, err = tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(n))
		}
		if err == nil {
			err = tx.Commit()
		}
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to version %d: %w", n, err)
		}
	}
	return nil
}
