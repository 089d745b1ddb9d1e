-- The upload under way of one of an entry's files, as the engine last told
-- it (outbox/sending.go): which step's file, the bytes the engine holds of
-- it, and its size. Kept in the database, so that `spark outbox --json`
-- and the window show it, and show it again after a restart, before the
-- next try asks the engine. Cleared when the step is done.
ALTER TABLE queue ADD COLUMN sending_step TEXT NOT NULL DEFAULT '';  -- StepCopy, StepOriginal or ''
ALTER TABLE queue ADD COLUMN sending_held INTEGER NOT NULL DEFAULT 0; -- bytes the engine holds
ALTER TABLE queue ADD COLUMN sending_size INTEGER NOT NULL DEFAULT 0; -- the file's size
