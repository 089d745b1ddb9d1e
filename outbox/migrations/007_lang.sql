-- The language the words of a photo were read in (a "words" write: the
-- words found in a photo, sent as POST /v1/moments/{id}/words). '' for
-- every other kind, and for every entry of a version 6 outbox.
ALTER TABLE queue ADD COLUMN lang TEXT NOT NULL DEFAULT '';
