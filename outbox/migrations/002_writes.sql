-- Dad's writes other than photos: notes, caption and taken_at edits,
-- deletes, keeping and removing phrases, careful readings, readings asked
-- again and quick recalls. Each is stored with every id it needs, minted
-- when Dad acted, before anything is sent; the drain delivers them in seq
-- order (the order Dad made them), one moment's (or one phrase's) writes
-- never overtaking each other.
CREATE TABLE writes (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT, -- the order Dad made them
	id              TEXT NOT NULL UNIQUE,  -- the write's id: note's moment id, job id, recall id, turn request id, or a ULID
	kind            TEXT NOT NULL,         -- note, caption, taken_at, delete, keep, unkeep, careful, again, recall
	moment_id       TEXT NOT NULL DEFAULT '',
	phrase_id       TEXT NOT NULL DEFAULT '',  -- keep, unkeep
	request_id      TEXT NOT NULL DEFAULT '',  -- note: the create's client request id
	turn_request_id TEXT NOT NULL DEFAULT '',  -- note, again: the practical turn's client request id
	text            TEXT NOT NULL DEFAULT '',  -- note text, caption, taken_at (RFC 3339), phrase text
	made_at         TEXT NOT NULL,
	rev             INTEGER NOT NULL DEFAULT 0, -- bumped when a newer caption replaces the unsent one
	state           TEXT NOT NULL DEFAULT 'pending',  -- pending, parked, done
	steps           INTEGER NOT NULL DEFAULT 0,       -- a note's steps done (create, turn)
	target          TEXT NOT NULL DEFAULT '',         -- engine URL the done steps went to
	attempts        INTEGER NOT NULL DEFAULT 0,
	next_try        INTEGER NOT NULL DEFAULT 0,       -- unix milliseconds
	last_code       TEXT NOT NULL DEFAULT '',
	last_error      TEXT NOT NULL DEFAULT '',
	sent_at         TEXT,
	result          TEXT NOT NULL DEFAULT ''          -- the engine's answer (JSON) once sent
);
CREATE INDEX writes_state ON writes (state, seq);
CREATE INDEX writes_moment ON writes (moment_id, seq);
