-- Version 4: who created what. A moment's owner is the author of its
-- moment.create (the name of the token that wrote it), and a request id's
-- owner the author of the op that first used it; '' for the engine's own
-- ops and for every op logged before ops had authors. Applied after
-- schema.sql and search.sql to a new mirror, and as the migration of a
-- version-3 mirror, whose ops all predate authors: '' is what a rebuild
-- from its log gives too.
ALTER TABLE moments ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE requests ADD COLUMN owner TEXT NOT NULL DEFAULT '';
