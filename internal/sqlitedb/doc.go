// Package sqlitedb is what Spark's SQLite files share, whoever opens them
// (the engine's mirror and fsck, the outbox, the replica): the data source
// name that reaches SQLite with any folder name (DSN, dsn.go), the one
// migration helper with versioned steps (Migrate, migrate.go), the folder
// lock of the outbox and the replica (LockFolder: dirlock's lock that names
// its holder, with the legacy SQLite lock of older Sparks beside it), and
// SQLite's error codes (Code). It has no design of its own; each owner
// keeps its schema.
package sqlitedb
