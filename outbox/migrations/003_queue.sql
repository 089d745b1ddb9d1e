-- One queue: a photo and every other write are one kind of entry, in one
-- table, with ordered steps (a photo's four, a note's two, one for the
-- rest), run by one step runner (queue.go). Photos keep their capture
-- order and writes the order Dad made them (photos first: no rule orders a
-- photo against a write by seq, only by the moment's create).
CREATE TABLE queue (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT, -- the order Dad made them
	id              TEXT NOT NULL UNIQUE,  -- a photo's: also its create's client request id
	kind            TEXT NOT NULL,         -- photo, note, caption, taken_at, delete, keep, unkeep, careful, again, recall
	moment_id       TEXT NOT NULL DEFAULT '',
	phrase_id       TEXT NOT NULL DEFAULT '',  -- keep, unkeep
	request_id      TEXT NOT NULL DEFAULT '',  -- note: the create's client request id
	turn_request_id TEXT NOT NULL DEFAULT '',  -- photo, note, again: the practical turn's client request id
	text            TEXT NOT NULL DEFAULT '',  -- note text, caption, taken_at (RFC 3339), phrase text
	rev             INTEGER NOT NULL DEFAULT 0, -- bumped when a newer caption replaces the unsent one
	-- a photo's files and ids
	copy_id         TEXT NOT NULL DEFAULT '',
	original_id     TEXT NOT NULL DEFAULT '',
	source          TEXT NOT NULL DEFAULT '',  -- the path it was imported from
	name            TEXT NOT NULL DEFAULT '',  -- the source's base name
	format          TEXT NOT NULL DEFAULT '',
	content_type    TEXT NOT NULL DEFAULT '',
	size            INTEGER NOT NULL DEFAULT 0,
	sha256          TEXT NOT NULL DEFAULT '',  -- of the original, lower-case hex
	copy_size       INTEGER NOT NULL DEFAULT 0,
	copy_sha256     TEXT NOT NULL DEFAULT '',
	copy_width      INTEGER NOT NULL DEFAULT 0,
	copy_height     INTEGER NOT NULL DEFAULT 0,
	taken_at        TEXT,                      -- RFC 3339 or NULL
	-- its delivery
	made_at         TEXT NOT NULL,             -- captured or made, RFC 3339
	state           TEXT NOT NULL DEFAULT 'pending',  -- pending, parked, done
	steps           INTEGER NOT NULL DEFAULT 0,       -- steps done, in order
	target          TEXT NOT NULL DEFAULT '',         -- engine URL the done steps went to
	turn_id         TEXT NOT NULL DEFAULT '',         -- a photo's practical turn, once started
	attempts        INTEGER NOT NULL DEFAULT 0,       -- failures since the last success
	next_try        INTEGER NOT NULL DEFAULT 0,       -- unix milliseconds
	last_code       TEXT NOT NULL DEFAULT '',
	last_error      TEXT NOT NULL DEFAULT '',
	done_at         TEXT,                             -- delivered (sent), RFC 3339
	result          TEXT NOT NULL DEFAULT ''          -- a write's answer from the engine (JSON) once sent
);
CREATE INDEX queue_due ON queue (state, next_try);
CREATE INDEX queue_moment ON queue (moment_id, seq);
CREATE INDEX queue_phrase ON queue (phrase_id, seq);
CREATE INDEX queue_sha256 ON queue (sha256);

INSERT INTO queue (id, kind, moment_id, turn_request_id, copy_id, original_id, source, name, format, content_type,
	size, sha256, copy_size, copy_sha256, copy_width, copy_height, taken_at, made_at, state, steps, target, turn_id,
	attempts, next_try, last_code, last_error, done_at)
SELECT id, 'photo', moment_id, turn_request_id, copy_id, original_id, source, name, format, content_type,
	size, sha256, copy_size, copy_sha256, copy_width, copy_height, taken_at, captured_at, state, steps, target, turn_id,
	attempts, next_try, last_code, last_error, delivered_at
FROM entries ORDER BY captured_at, id;

INSERT INTO queue (id, kind, moment_id, phrase_id, request_id, turn_request_id, text, rev, made_at, state, steps,
	target, attempts, next_try, last_code, last_error, done_at, result)
SELECT id, kind, moment_id, phrase_id, request_id, turn_request_id, text, rev, made_at, state, steps,
	target, attempts, next_try, last_code, last_error, sent_at, result
FROM writes ORDER BY seq;

DROP TABLE entries;
DROP TABLE writes;
