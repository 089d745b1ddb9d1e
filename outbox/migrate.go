package outbox

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// The outbox database's schema has a version, kept in PRAGMA
// user_version: schema.sql is version 0 (the first outbox), and each file
// migrations/NNN_name.sql takes it from version NNN-1 to NNN. Open brings an
// older outbox up to date with sqlitedb.Migrate, one migration per
// transaction, and refuses one written by a newer Spark rather than
// misread it.

//go:embed migrations/*.sql
var migrationFiles embed.FS

var migrations = func() []sqlitedb.Migration {
	m, err := sqlitedb.MigrationFiles(migrationFiles, "migrations")
	if err != nil {
		panic(err)
	}
	return m
}()

// SchemaVersion is the outbox database version this Spark writes.
var SchemaVersion = migrations[len(migrations)-1].Version

// migrate creates the schema in a new database and brings an older one up
// to SchemaVersion.
func migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v == 0 {
		// A new outbox, or the first Spark's: schema.sql makes what is
		// missing (its tables are "IF NOT EXISTS"). Past version 0 it
		// must not run: migration 3 drops the tables it makes.
		if _, err := db.ExecContext(ctx, schema); err != nil {
			return err
		}
	}
	_, err := sqlitedb.Migrate(ctx, db, migrations)
	var ve *sqlitedb.VersionError
	if errors.As(err, &ve) {
		return fmt.Errorf("the outbox was written by a newer Spark (database version %d; this Spark knows up to %d): update Spark to open it", ve.Have, ve.Want)
	}
	return err
}
