// Package mirror is the engine's SQLite mirror: a fold of the op log into
// tables that answer reads quickly.
//
// The log (engine/oplog) is the truth. The mirror is written only by Apply,
// which folds a batch of log records in one transaction and stores the seq of
// the last one; a record at or below that seq is skipped, so re-applying is
// harmless. Everything a reader sees (created_at, updated_at, finished_at...)
// comes from the records themselves (their At and their data), never from
// the clock at fold time, so folding the same log twice gives the same tables
// and a lost or stale mirror can always be rebuilt
// (`spark-engine rebuild --data DIR`).
//
// The schema (schema.sql) carries a version in PRAGMA user_version. Open
// migrates a mirror of an older version in place, one numbered migration at
// a time (migrations in mirror.go), so that it equals the fold of its log
// by this version; it refuses one it cannot migrate with an error that says
// to rebuild. What a migration needs and the mirror never kept (who kept
// each phrase, version 6) it reads from the log through Options.Members.
//
// Owners. A moment's, a request id's and a kept phrase's owner is the
// family member of the op that made it (oplog.Record.MemberOf: the member
// the op was written for, else its author's token name, which was its own
// member before members existed); empty for the engine's own ops and for
// those logged before authors.
//
// # The ops and their data
//
// Each record's Op names one of the contract's ops and its Data is the JSON
// of the matching type in ops.go:
//
//	moment.create  MomentCreate  a new moment; updated_at = At, created_at = At
//	                             or, moved from another engine, its CreatedAt.
//	               With Recall set it is a quick recall's moment: the recall
//	               is stored and its phrases' last_recalled_at becomes At.
//	moment.edit    MomentEdit    the fields given change; updated_at = At. With
//	               base_caption, a caption changed since is kept: merged
//	               (merge3) or an alternative [extension]. It brings a
//	               deleted moment back.
//	moment.delete  MomentDelete  deleted_at = updated_at = At.
//	moment.restore MomentRestore deleted_at = NULL, updated_at = At [extension].
//	moment.words   MomentWords   the words found in the photo, the first kept
//	               [extension]; updated_at stays.
//	moment.purge   MomentPurge   a deleted moment removed for good, the
//	               engine's own op [extension]: purged_at = updated_at = At,
//	               caption, readings' texts and words emptied, alternatives
//	               and media records dropped, and the blobs no other record
//	               names listed in media_gone (purge.sql). On a moment not
//	               deleted, or purged already, it does nothing. Nothing after
//	               it (an edit, a restore, words) changes the moment.
//	media.put      MediaPut      a stored blob; it becomes its moment's copy or
//	               original unless the moment already names another one.
//	turn.start     TurnStart     a turn, queued; started_at = At.
//	turn.finish    TurnFinish    finished or failed, with text or error;
//	               finished_at = At.
//	phrase.keep    PhraseKeep    an active mark; kept_at = At.
//	phrase.unkeep  PhraseUnkeep  the mark is removed.
//
// The record's RequestID is the client request id that caused the op: the
// create's, the practical turn's, the recall id on a recall's moment.create,
// and on the turn.start of a job's turn i "<job id>:<i>", of a recall's turn
// "<recall id>:turn" (logs written before schema version 2 carry the job or
// recall id itself there; the fold derives these two from the data, so old
// and new lines fold alike). moment.create and turn.start remember their
// request ids in the requests table with INSERT OR IGNORE, so the first
// producer wins and the request memory comes back whole with a rebuild. The
// kinds are "moment", "recall" (a moment.create with Recall), "turn",
// "job" (the job id, at its first turn.start), "job_turn" and
// "recall_turn" (the derived ids, which only a repeat of the job or recall
// answers).
//
// A turn that a worker is running is not logged as such: the mirror says
// queued until turn.finish, and the engine shows running for the turns its
// workers hold. A turn started and not finished when the engine stops is
// therefore simply asked again at the next start.
package mirror
