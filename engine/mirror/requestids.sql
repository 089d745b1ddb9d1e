-- Migration of a version-1 mirror to version 2: the derived request ids.
-- A job's turn i carries the request id "<job id>:<i>" and a quick
-- recall's turn "<recall id>:turn" (turns.request_id), and the request
-- memory remembers them (kinds 'job_turn' and 'recall_turn'), as the fold
-- of version 2 does for the same log. The first producer of a request id
-- wins, so a derived id already remembered for a later write (the old
-- engine did not know it was taken) goes to the earlier turn.
UPDATE turns SET request_id = job_id || ':' || job_index WHERE job_id <> '';
UPDATE turns SET request_id = recall_id || ':turn' WHERE job_id = '' AND recall_id <> '';
INSERT INTO requests (id, kind, moment_id, turn_id, seq)
	SELECT request_id, CASE WHEN job_id <> '' THEN 'job_turn' ELSE 'recall_turn' END, moment_id, id, seq
	FROM turns WHERE job_id <> '' OR recall_id <> '' ORDER BY seq
	ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, moment_id = excluded.moment_id,
		turn_id = excluded.turn_id, seq = excluded.seq
	WHERE excluded.seq < requests.seq;
