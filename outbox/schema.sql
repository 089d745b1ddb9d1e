CREATE TABLE IF NOT EXISTS entries (
	id              TEXT PRIMARY KEY,  -- entry id, also the moment create's client request id
	moment_id       TEXT NOT NULL,
	copy_id         TEXT NOT NULL,
	original_id     TEXT NOT NULL,
	turn_request_id TEXT NOT NULL,
	source          TEXT NOT NULL,     -- the path it was imported from
	name            TEXT NOT NULL,     -- the source's base name
	format          TEXT NOT NULL,     -- jpeg, png, webp, heic
	content_type    TEXT NOT NULL,
	size            INTEGER NOT NULL,
	sha256          TEXT NOT NULL,     -- of the original, lower-case hex
	copy_size       INTEGER NOT NULL,
	copy_sha256     TEXT NOT NULL,
	copy_width      INTEGER NOT NULL,
	copy_height     INTEGER NOT NULL,
	taken_at        TEXT,              -- RFC 3339 or NULL
	captured_at     TEXT NOT NULL,
	state           TEXT NOT NULL DEFAULT 'pending',  -- pending, parked, done
	steps           INTEGER NOT NULL DEFAULT 0,       -- steps done, in order (0-4)
	target          TEXT NOT NULL DEFAULT '',         -- engine URL the done steps went to
	turn_id         TEXT NOT NULL DEFAULT '',
	attempts        INTEGER NOT NULL DEFAULT 0,       -- failures since the last success
	next_try        INTEGER NOT NULL DEFAULT 0,       -- unix milliseconds
	last_code       TEXT NOT NULL DEFAULT '',
	last_error      TEXT NOT NULL DEFAULT '',
	delivered_at    TEXT
);
CREATE INDEX IF NOT EXISTS entries_due ON entries (state, next_try);
CREATE INDEX IF NOT EXISTS entries_sha256 ON entries (sha256);

-- Originals delivered, kept after their entries are discarded, so the same
-- photo imported again is recognised.
CREATE TABLE IF NOT EXISTS delivered (
	sha256       TEXT PRIMARY KEY,
	entry_id     TEXT NOT NULL,
	moment_id    TEXT NOT NULL,
	delivered_at TEXT NOT NULL
);
