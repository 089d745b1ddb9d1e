package api

import "time"

// BackupHealth [extension] is the state of an engine's off-site copy
// (engine/backup), in Health.Backup when the engine ships one: a family
// engine run with `serve --backup-to`, or the app's own engine set up in
// Settings. It holds no secret, and names no target but in Reason, which
// the engine sends only to a request with one of its tokens (health
// needs none); the engine's log names the target too.
type BackupHealth struct {
	// State is one of the BackupState constants.
	State string `json:"state"`
	// Problem, in state BackupFailing or BackupCheckFailed, is one of the
	// BackupProblem constants; Reason is the failure in words for the
	// engine's operator, to a request with a token only.
	Problem string `json:"problem,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// ShippedSeq is the last op in the copy; Seq, the engine's last.
	ShippedSeq uint64 `json:"shipped_seq"`
	Seq        uint64 `json:"seq"`
	// ShippedAt is when a pass last found the copy holding every op
	// logged before it began; absent before the first such pass.
	ShippedAt *time.Time `json:"shipped_at,omitempty"`
	// BehindSince is when the oldest op not yet in the copy was logged;
	// absent when the copy holds every op.
	BehindSince *time.Time `json:"behind_since,omitempty"`
	// Check is the last drill: the copy restored into a temporary folder
	// and checked. Absent before the first.
	Check *BackupCheck `json:"check,omitempty"`
	// FailingSince is when the state last became failing or check_failed
	// (a problem that changes to another keeps it); absent in the other
	// states. It starts again when the engine restarts.
	FailingSince *time.Time `json:"failing_since,omitempty"`
}

// BackupCheck is how the last drill of the off-site copy went.
type BackupCheck struct {
	At time.Time `json:"at"`
	OK bool      `json:"ok"`
	// Moments and Bytes are what the copy held then: the moments of the
	// restored mirror and the bytes of every object in the copy.
	Moments int   `json:"moments"`
	Bytes   int64 `json:"bytes"`
	// Sampled is true when only a sample of the photos was fetched (the
	// whole log always is).
	Sampled bool `json:"sampled,omitempty"`
}

// The states of an off-site copy (BackupHealth.State).
const (
	// BackupCurrent: the last pass shipped every op logged before it.
	BackupCurrent = "current"
	// BackupCatchingUp: a pass is shipping a backlog (the first copy of
	// a large folder, or after the target was away) and succeeding.
	BackupCatchingUp = "catching_up"
	// BackupFailing: the last pass failed, or the copy lost what it held
	// (emptied by hand; until it is shipped again and a drill passes);
	// Problem says which. It shows before BackupCheckFailed.
	BackupFailing = "failing"
	// BackupCheckFailed: the last drill found the copy damaged or
	// incomplete; Problem says how.
	BackupCheckFailed = "check_failed"
)

// Why an off-site copy is failing (BackupHealth.Problem).
const (
	// BackupUnreachable: the target did not answer (a disk unplugged, a
	// share unmounted, no network, the store down).
	BackupUnreachable = "unreachable"
	// BackupDenied: the store refused the engine's key (wrong or revoked
	// credentials, a policy that forbids writing).
	BackupDenied = "denied"
	// BackupGone: the bucket or folder is not there any more, or the copy
	// in it was emptied or replaced by hand.
	BackupGone = "gone"
	// BackupFull: the target has no room.
	BackupFull = "full"
	// BackupDamaged: an object in the copy does not hold the bytes it was
	// shipped with (the drill's finding, or a pass's).
	BackupDamaged = "damaged"
	// BackupNoKey: the copy is encrypted with a key this engine does not
	// hold.
	BackupNoKey = "no_key"
	// BackupOther: anything else; Reason says what.
	BackupOther = "other"
)
