-- Version 7: edits that know what they were made from [extension]. A
-- moment.edit whose data carries base_caption (the caption Dad saw when he
-- typed) and that finds another caption there keeps both: a word-level
-- three-way merge when the two changes touch different words, else the
-- later-arriving caption wins and the other becomes an alternative.
--
-- caption_at and caption_by say when and on which computer (token name)
-- the moment's caption was written, set only by edits that carry
-- base_caption; NULL for captions written any other way (created with the
-- moment, or by an edit without a base), and for every moment a version-6
-- mirror holds, as a rebuild gives them: no op logged before version 7
-- carries base_caption. So the migration adds the columns and an empty
-- table, and equals the fold of the same log.
ALTER TABLE moments ADD COLUMN caption_at INTEGER;
ALTER TABLE moments ADD COLUMN caption_by TEXT;

CREATE TABLE alternatives (
	moment_id  TEXT NOT NULL REFERENCES moments (id),
	id         TEXT NOT NULL,
	caption    TEXT NOT NULL,
	written_at INTEGER,
	written_by TEXT NOT NULL DEFAULT '',
	seq        INTEGER NOT NULL,
	PRIMARY KEY (moment_id, id)
) WITHOUT ROWID;
