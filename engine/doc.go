// Package engine is Spark's engine as a Go service: it takes the contract's
// writes, logs them, folds them into the mirror, answers reads from the
// mirror and runs Pippa's turns. engine/server puts it on HTTP and
// engine/host composes and serves it; engine/api holds the contract's
// types, engine/client speaks it, engine/push copies one engine into
// another and engine/backup keeps an off-site copy of a data folder
// (README's "Where each part lives").
//
// # The data directory
//
//	DIR/ops.log      the op log (engine/oplog), the truth
//	DIR/mirror.db    the SQLite mirror (engine/mirror), a fold of the log
//	DIR/media/       the content-addressed blobs (engine/media)
//	DIR/tokens.json  the bearer tokens' hashes (engine/auth)
//	DIR/engine.json  the brain seats set through SetSeats:
//	                 {"seats": [{"name", "url", "model", "key", "timeout"}]}
//	DIR/engine-id.json  the engine's id (identity.go), made on first use:
//	                 {"version": 1, "id": ULID}
//
// # Writes
//
// Every write first validates every id and field it was given (a contract
// error, nothing written), then takes the keys it touches (request id,
// moment id, media id, phrase id...) in an in-memory lock table. Holding
// its keys, it reads the mirror, decides, and appends its ops to the log;
// Append returns only after the ops are fsync'ed and folded into the mirror,
// and only then are the keys released. Creates, when several come at once,
// are answered once fsync'ed and folded just behind (appendCreate): their
// ids enter the mirror's id index first, and every read of the mirror
// waits for the fold to reach the seq the log answered. So a second request for the same key
// waits for the first and then sees what it wrote: no interleaving can make
// two moments for one client request id or one moment id. Writes with
// different keys append concurrently and share fsyncs (the log's group
// commit).
//
// # Turns
//
// A turn is logged as turn.start and later turn.finish. The engine does not
// log the moment a worker takes a turn: the mirror says queued until the
// finish, and the engine reports running (and the seat) for the turns its
// workers hold. Every turn started and not finished is therefore asked
// (again) when the engine opens, which is what a crash mid-turn needs.
//
// Turn ids: a practical turn gets a ULID minted by the engine (its client
// request id is kept on the turn); a quick recall's turn is
// "<recall id>:turn"; a job's turns are "<job id>:<i>", i from 0, one per
// seat configured when the job starts (one turn, left for the first seat,
// when none is). Practical and recall turns go to the first seat; job turn
// i goes to the seat it was started for.
//
// A deleted moment still takes uploads and turns: a client's outbox may
// deliver a capture after the moment was deleted elsewhere, and refusing
// would park the capture for nothing. An edit of a deleted moment brings
// it back [extension]: what someone typed is never turned down for a
// delete made elsewhere (the answer says restored).
//
// Workers (Config.Workers) take queued turns oldest first. A seat's
// transient errors (pippa.IsTransient) are retried with full-jitter
// exponential back-off that honours the seat's Retry-After (package
// retry), up to Config.RetryAttempts attempts; then, or at once for a
// permanent error, the turn finishes as failed with a message that says
// what to check. With no seat configured turns stay queued; SetSeats wakes
// them.
package engine
