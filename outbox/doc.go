// Package outbox is Spark's durable on-device queue: it makes a photo safe
// the moment it is imported, then delivers it to an engine exactly once,
// however bad the link.
//
// # Capture
//
// Capture mints every id before any network (a ULID each for the entry, the
// moment, the small copy, the original and the practical turn's request id;
// the entry's id is also the moment create's client request id), copies the
// original in byte for byte while hashing it, makes the small copy with
// package photo, fsyncs both and commits the entry in one SQLite
// transaction. When Capture reports a result the ids are final and the
// source may vanish.
//
// # On disk
//
//	DIR/outbox.db          SQLite (WAL): the queue, delivered hashes, removals
//	DIR/outbox.lock        held while an Outbox is open (one process at a time;
//	                       it names the holder, as the engine's engine.lock)
//	DIR/lock               held beside it, the lock of Sparks before the one
//	                       queue, so that one of them and this one never both
//	                       open the folder (sqlitedb.LockFolder)
//	DIR/staging/<id>/      files of a capture in progress
//	DIR/files/<id>/original  the original, byte for byte
//	DIR/files/<id>/copy.jpg  the small copy (JPEG, long edge at most 1600 px)
//
// A capture writes into staging/<id>, fsyncs the files and the directory,
// renames it to files/<id>, fsyncs files/, and only then commits the row.
// The original's fsync runs while its small copy is made, the small copy's
// and the folder's while the worker goes on to its next photo, and the
// captures finished meanwhile are placed and committed together (one sync
// of files/, one transaction); none is reported before its batch is
// committed.
// So a crash leaves either a whole entry or no row at all; Open removes
// whatever is in staging/ and every files/<id> without a row (or of a
// delivered entry, unless Options.KeepFiles), so no stray file outlives a
// crash. A folder that cannot be removed (on Windows, a file another
// program holds open) never stops Open, the drain or Discard: it is
// remembered in the removals table, retried later and listed by
// Leftovers (removals.go). The database's schema version is in PRAGMA
// user_version, brought up to date by numbered migrations (migrate.go,
// with sqlitedb.Migrate, the mirror's helper too).
//
// # One queue
//
// A photo and each of Dad's other writes are one kind of entry of one
// table, the queue (queue.go): a Kind, ordered steps (a photo's four, a
// note's two, one for the rest), a state (pending, parked, done) and the
// ids minted when Dad acted. A kind is a value in one table (kinds.go):
// its steps, how each is sent, what it waits for and how two unsent ones
// combine; the queue and the drain read the table, and the window keeps
// its own table keyed by the same kinds (app's overlays). One step runner (deliver) runs an entry's
// remaining steps, recording each in the transaction that records its
// result; one fail makes it wait or parks it; one Retry, RetryAll and
// Discard act on any entry; Status reads the counts by kind and state and
// every unsent entry in one transaction, so nothing shown from it can
// disagree. Entry (a photo) and Write (any other write) are views of its
// rows.
//
// # Drain
//
// Run delivers entries in lanes, with one scheduler: each photo in a lane
// of its own, a few at a time (Options.Concurrency), every other write in
// one lane, in the order Dad made them; Discard stops an entry's lane and
// keeps it off until the entry is gone (drain.go). A photo goes in the
// contract's step order: create the moment, upload the small copy, start
// the practical turn, upload the original. Each step is marked done in the transaction that
// records its result and skipped on a retry; the engine's idempotency keys
// (the ids minted at capture) make any replay harmless. Classify is the one
// function deciding what a failure means, after Spark's one retry policy
// (package retry): network trouble, 5xx, 401, 403, 408, 425 and 429 make
// the entry wait (exponential back-off with full jitter, Retry-After as a
// floor), as does trouble with the outbox's database or an unreadable
// answer, each under a code that names it; any other 4xx parks it with the
// engine's code and message until the user retries or discards it, and so
// does trouble with the entry's own files in the outbox (gone, unreadable
// or changed: missing_file, unreadable_file, changed_file), which no retry
// can mend until someone puts the file back. Nothing leaves
// the outbox unless delivered or discarded.
//
// # Writes
//
// Dad's other writes (a note, a caption or taken_at edit, a delete, a
// phrase kept or removed, a careful reading, a reading asked again, a quick
// recall) are entries of the queue too (writes.go), stored synced by
// AddWrite with every id they need, minted when he acted: a second
// AddWrite with the same id is the same write. Unsent caption (or
// taken_at) edits of one moment merge into the newest. The drain sends
// them one at a time in the order Dad made them (drainwrites.go), a write
// to a moment waiting for that moment's create (a photo's first step, or
// the note), and never before an earlier unsent write of the same moment
// or phrase (a quick recall, made of the phrases kept, never before an
// earlier phrase kept or removed that waits to be sent); photos go a few
// at a time beside them. Both run through the one step runner, and Retry
// and Discard act on parked ones. A note is two requests: its create and
// its practical turn.
package outbox
