// Package replica keeps, on this computer, a copy of a family engine that
// can be read with no network: the engine's ops, pulled page by page
// through GET /v1/ops, folded into a local SQLite mirror by the engine's
// own fold (engine/mirror), and the small copy of every live moment.
// Only the app (app/) and spark (cmd/spark) use it, so it sits under app/.
//
// # The folder
//
// A replica lives in one folder (the app's is DATA/replica):
//
//	replica.lock held by the one process using the replica (dirlock, naming
//	             it); another gets ErrLocked
//	lock         held beside it: the lock of Sparks before it, so that an
//	             older Spark and this one never both open the folder
//	             (sqlitedb.LockFolder)
//	replica.db   the mirror (engine/mirror's schema and version), plus the
//	             table replica_state (key, value) kept by this package
//	copies/      small copies, each named by the lower-case hex SHA-256
//	             that the log records for it; a file's modification time is
//	             when it was last viewed (or, never viewed, when its moment
//	             was created), which orders eviction
//
// replica_state holds "format" (FormatVersion, the version of everything
// above), "engine" (the engine's id from GET /v1/health's engine_id, or
// "url:" and its address for an engine that reports none), "last_op" (the
// SHA-256 of the last folded op as served) and "synced_at" (when the replica
// last caught up with the engine's head). Every page of ops is folded in one
// transaction that also stores its last seq (the cursor), last_op and, for
// the page that reaches the head, synced_at: a sync cut at any point leaves
// the replica at the end of a whole page.
//
// A replica.db of another mirror schema or replica format is replaced by an
// empty one: nothing in a replica is the only copy of anything.
//
// # Syncing
//
// Sync asks the engine's health for its id and head seq, then pulls the ops
// after its cursor. A different engine id drops the replica (ops and
// copies) and pulls from seq 0. The first page is read from one op before
// the cursor, so that the op the replica folded last is checked against
// the engine's: an engine whose log is shorter than the cursor or differs
// at it (restored from an older backup, replaced) stops the sync with an
// error, as does a page that does not fold (an op this Spark does not know,
// a gap in seq); the replica is left as it was, and Rebuild pulls the whole
// log again from seq 0. Then the small copies of live moments are fetched,
// most recently created moment first, checked against their SHA-256 and
// kept within the cache's byte budget (Cache: least recently viewed evicted
// first, never a pinned copy).
package replica
