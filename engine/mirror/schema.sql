-- The mirror's schema. Every row is a fold of the op log (see doc.go); the
-- version lives in PRAGMA user_version; a mirror of an older version is
-- migrated (mirror.go's migrations), one of another version is refused until
-- it is rebuilt from the log.

-- meta holds the seq of the last op folded in (key 'last_seq').
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;

-- Times are nanoseconds since the Unix epoch (UTC), taken from the op's At,
-- never from the clock at fold time; taken_at keeps the client's RFC 3339
-- text so its time zone offset survives.
CREATE TABLE moments (
	id          TEXT PRIMARY KEY,
	kind        TEXT NOT NULL,
	caption     TEXT NOT NULL,
	taken_at    TEXT,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	deleted_at  INTEGER,
	copy_id     TEXT,
	original_id TEXT,
	request_id  TEXT,
	seq         INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX moments_copy ON moments (copy_id) WHERE copy_id IS NOT NULL;
CREATE INDEX moments_original ON moments (original_id) WHERE original_id IS NOT NULL;

CREATE TABLE media (
	id           TEXT PRIMARY KEY,
	moment_id    TEXT NOT NULL REFERENCES moments (id),
	role         TEXT NOT NULL,
	sha256       TEXT NOT NULL,
	size         INTEGER NOT NULL,
	content_type TEXT NOT NULL,
	created_at   INTEGER NOT NULL,
	seq          INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE turns (
	id          TEXT PRIMARY KEY,
	moment_id   TEXT NOT NULL REFERENCES moments (id),
	mode        TEXT NOT NULL,
	seat        TEXT NOT NULL,
	status      TEXT NOT NULL,
	text        TEXT NOT NULL,
	error       TEXT NOT NULL,
	request_id  TEXT NOT NULL,
	job_id      TEXT NOT NULL,
	job_index   INTEGER NOT NULL,
	recall_id   TEXT NOT NULL,
	started_at  INTEGER NOT NULL,
	finished_at INTEGER,
	seq         INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX turns_moment ON turns (moment_id, seq);
CREATE INDEX turns_job ON turns (job_id, job_index) WHERE job_id <> '';
CREATE INDEX turns_open ON turns (seq) WHERE finished_at IS NULL;

CREATE TABLE phrases (
	id               TEXT PRIMARY KEY,
	text             TEXT NOT NULL,
	moment_id        TEXT NOT NULL,
	kept_at          INTEGER NOT NULL,
	last_recalled_at INTEGER,
	seq              INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE recalls (
	id         TEXT PRIMARY KEY,
	moment_id  TEXT NOT NULL REFERENCES moments (id),
	turn_id    TEXT NOT NULL,
	phrases    TEXT NOT NULL, -- JSON array of {"id", "text"}
	created_at INTEGER NOT NULL,
	seq        INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE jobs (
	id         TEXT PRIMARY KEY,
	moment_id  TEXT NOT NULL REFERENCES moments (id),
	created_at INTEGER NOT NULL,
	seq        INTEGER NOT NULL
) WITHOUT ROWID;

-- requests is the request memory: a client request id (or recall or job id,
-- or the id derived from one for its turns: "<job id>:<i>", "<recall
-- id>:turn") and what it produced. The first producer wins (INSERT OR
-- IGNORE).
CREATE TABLE requests (
	id        TEXT PRIMARY KEY,
	kind      TEXT NOT NULL,
	moment_id TEXT NOT NULL,
	turn_id   TEXT NOT NULL,
	seq       INTEGER NOT NULL
) WITHOUT ROWID;
