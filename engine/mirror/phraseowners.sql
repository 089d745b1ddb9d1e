-- Version 6: who keeps each kept phrase. A phrase's owner is the member of
-- its phrase.keep (the member the op was written for, else its author:
-- oplog.Record.MemberOf), '' for the engine's own and for every phrase
-- kept before ops had authors. Since version 6 the owners of moments and
-- request ids (owners.sql) are members too; every op logged before members
-- is its author's member, so their values stay as they are. Applied after
-- errorcodes.sql to a new mirror, and as the migration of a version-5
-- mirror, whose phrases then get the members of their phrase.keep ops
-- read from the log in Go (derivePhraseOwners), as a rebuild gives them.
ALTER TABLE phrases ADD COLUMN owner TEXT NOT NULL DEFAULT '';
