-- Whether an entry waits because the engine did not answer (outbox
-- Verdict.Unreachable: no connection, a time-out, a proxy's 502, 503 or
-- 504 that asked for no wait), rather than because the engine asked it to
-- wait. Such a wait ends as soon as anything in Spark sees the engine
-- answer again (Outbox.EngineAnswered), not at the end of its back-off.
-- Set with every failure; meaningless when the entry does not wait.
ALTER TABLE queue ADD COLUMN unreachable INTEGER NOT NULL DEFAULT 0;
-- A version 4 outbox kept no record of why an entry waits, only its last
-- code. One that waits with the code "network" (outbox CodeNetwork: no
-- connection, a reset, a reply cut short, a time-out) waits because the
-- engine did not answer: it is marked so, and ends its wait when the
-- engine answers again. A 502, 503 or 504 cannot be told apart: version 4
-- did not keep whether it came with a Retry-After (the engine asking for
-- a wait) or not (a proxy in front of an engine that is away), so such a
-- wait is left to run out its back-off (at most Options.BackoffCap), as
-- it would have in version 4, rather than end a wait the engine asked for.
UPDATE queue SET unreachable = 1 WHERE state = 'pending' AND next_try > 0 AND last_code = 'network';
