package backup

import "github.com/sparkfamily/spark/engine/api"

// WhatToDo is what the operator of an engine can do about a problem of
// the off-site copy (a BackupProblem code, as ProblemOf tells), in words;
// docs/ENGINE.md says the same.
func WhatToDo(problem string) string {
	switch problem {
	case api.BackupUnreachable:
		return "plug in the disk or mount the share that holds the copy, or check that the store is up and its address (--backup-endpoint) right and reachable from here; Spark tries again by itself"
	case api.BackupDenied:
		return "check the key: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the profile in ~/.aws/credentials) must name a key the store still has, allowed to list, get and put in the bucket (for a folder: that this account may write there); restart serve after changing them"
	case api.BackupGone:
		return "check the target's address; if the bucket or folder was removed, make it again (serve ships everything again by itself); if the copy was emptied or changed by hand, find out who can delete there and use a bucket with object lock"
	case api.BackupFull:
		return "make room on the target, or raise the bucket's quota, or move to a larger one; Spark ships the rest at the next pass"
	case api.BackupDamaged:
		return "the copy no longer holds what was shipped, and the engine's own folder is not affected: ship it to a new, empty target (serve --backup-to NEW, or backup --to NEW), check that one, and only then retire the damaged copy; if the disk that holds the copy is failing, replace it"
	case api.BackupNoKey:
		return "give this engine the copy's key (backup.key from the engine that made it)"
	default:
		return "read the reason; if it persists, say so at the issue tracker with the engine's log"
	}
}
