-- Version 9: moments removed for good [extension]. A moment.purge op (the
-- engine's own, for a moment deleted longer ago than it keeps deleted
-- moments) sets purged_at, empties the caption, the readings' texts and
-- the words, drops its alternatives and media records, and names in
-- media_gone each blob no other media record names, for the engine to
-- remove from its store. A media.put of the same bytes later takes its
-- blob out of media_gone. No op logged before version 9 is a
-- moment.purge, so a migrated mirror holds no purged moment and an empty
-- media_gone, as a rebuild gives.
ALTER TABLE moments ADD COLUMN purged_at INTEGER;

CREATE TABLE media_gone (
	sha256 TEXT PRIMARY KEY,
	seq    INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX media_sha256 ON media (sha256);
CREATE INDEX moments_deleted ON moments (deleted_at) WHERE deleted_at IS NOT NULL AND purged_at IS NULL;
