-- The caption an edit was written from [extension of PATCH: base_caption],
-- as the window showed it when Dad typed: with it the engine keeps both
-- when the caption changed elsewhere meanwhile, rather than replacing the
-- other. NULL for every other kind, and for edits stored by a version 5
-- outbox, which go out as they would have (the caption replaced).
ALTER TABLE queue ADD COLUMN base TEXT;
