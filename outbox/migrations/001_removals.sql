-- Folders of the outbox that Spark could not remove yet (a file held open
-- by antivirus, Explorer's thumbnailer or a backup tool): they are retried
-- at each open and after deliveries, reported once in the log, and listed
-- by Outbox.Leftovers for Settings' details.
CREATE TABLE removals (
	path       TEXT PRIMARY KEY,  -- relative to the outbox folder, with "/": files/ID or staging/ID
	entry_id   TEXT NOT NULL,     -- the entry whose files these are, or ''
	reason     TEXT NOT NULL,     -- delivered, discarded, stray, staging
	since      TEXT NOT NULL,     -- RFC 3339, when the removal was first due
	attempts   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT NOT NULL DEFAULT ''
);
