-- Whether an entry waits because the engine did not answer (outbox
-- Verdict.Unreachable: no connection, a time-out, a proxy's 502, 503 or
-- 504 that asked for no wait), rather than because the engine asked it to
-- wait. Such a wait ends as soon as anything in Spark sees the engine
-- answer again (Outbox.EngineAnswered), not at the end of its back-off.
-- Set with every failure; meaningless when the entry does not wait.
ALTER TABLE queue ADD COLUMN unreachable INTEGER NOT NULL DEFAULT 0;
