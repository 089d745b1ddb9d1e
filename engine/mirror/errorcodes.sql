-- Version 5: why a failed reading failed (api.ReadFailCodes), from the
-- error_code of its turn.finish; a turn.finish logged before the code gets
-- the code its error's words give (failcode.go). Applied after owners.sql
-- to a new mirror, and as the migration of a version-4 mirror, whose
-- failed turns then get their codes from their errors in Go (migrations'
-- fix), as a rebuild from its log gives them.
ALTER TABLE turns ADD COLUMN error_code TEXT NOT NULL DEFAULT '';
