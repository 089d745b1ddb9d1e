package mirror

import (
	"fmt"
	"time"
)

// Request kinds in the requests table.
const (
	RequestMoment = "moment"
	RequestEdit   = "edit" // [extension] a moment.edit with a client request id
	RequestTurn   = "turn"
	RequestRecall = "recall"
	RequestJob    = "job"
	// RequestJobTurn is the request id "<job id>:<i>" of a job's turn i,
	// RequestRecallTurn the request id "<recall id>:turn" of a quick
	// recall's turn: derived from the job or recall id, they are taken as
	// any other request id is, and only the job or recall itself answers
	// them.
	RequestJobTurn    = "job_turn"
	RequestRecallTurn = "recall_turn"
)

// JobTurnRequestID is the request id of turn i of job: "<job id>:<i>".
func JobTurnRequestID(job string, i int) string { return fmt.Sprintf("%s:%d", job, i) }

// RecallTurnRequestID is the request id of a quick recall's turn:
// "<recall id>:turn".
func RecallTurnRequestID(recall string) string { return recall + ":turn" }

// MomentCreate is the data of a moment.create op.
type MomentCreate struct {
	ID         string      `json:"id"`
	Kind       string      `json:"kind"`
	Caption    string      `json:"caption,omitempty"`
	TakenAt    *time.Time  `json:"taken_at,omitempty"`
	CopyID     string      `json:"copy_id,omitempty"`
	OriginalID string      `json:"original_id,omitempty"`
	Recall     *RecallData `json:"recall,omitempty"`
	// CreatedAt is when the moment was first added, on another engine
	// (api.CreateMomentRequest.CreatedAt); nil for the op's own time.
	CreatedAt *time.Time `json:"created_at,omitempty"`
}

// addedAt is the moment's created_at, in the mirror's nanoseconds: its
// CreatedAt when it was first added elsewhere, else at, its op's time.
func (d *MomentCreate) addedAt(at int64) int64 {
	if d.CreatedAt != nil {
		return nanos(*d.CreatedAt)
	}
	return at
}

// RecallData marks a moment.create as a quick recall's moment.
type RecallData struct {
	ID      string         `json:"id"`
	TurnID  string         `json:"turn_id"`
	Phrases []RecallPhrase `json:"phrases"`
}

// RecallPhrase is one kept phrase a recall was assembled from.
type RecallPhrase struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// MomentEdit is the data of a moment.edit op; nil fields are left alone.
type MomentEdit struct {
	ID      string     `json:"id"`
	Caption *string    `json:"caption,omitempty"`
	TakenAt *time.Time `json:"taken_at,omitempty"`
	// BaseCaption [extension] is the caption the new one was written
	// from. When the moment's caption is no longer that, both are kept
	// (see the package doc). Nil: the caption simply changes, as before.
	BaseCaption *string `json:"base_caption,omitempty"`
	// WrittenAt and WrittenBy [extension] are when and on which computer
	// the caption was typed, for the alternative it may become; the fold
	// takes At for a WrittenAt after it, and the op's author for an empty
	// WrittenBy.
	WrittenAt *time.Time `json:"written_at,omitempty"`
	WrittenBy string     `json:"written_by,omitempty"`
	// Dismiss [extension] are alternatives Dad has set aside.
	Dismiss []string `json:"dismiss,omitempty"`
}

// MomentWords is the data of a moment.words op [extension]: the words
// found in the moment's photo. The first for a moment is kept.
type MomentWords struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Lang string `json:"lang"`
}

// MomentDelete is the data of a moment.delete op.
type MomentDelete struct {
	ID string `json:"id"`
}

// MomentRestore is the data of a moment.restore op [extension]: a deleted
// moment brought back.
type MomentRestore struct {
	ID string `json:"id"`
}

// MomentPurge is the data of a moment.purge op [extension]: a moment
// deleted longer ago than the engine keeps deleted moments, removed for
// good with its photos. The engine logs it; no client sends it.
type MomentPurge struct {
	ID string `json:"id"`
}

// MediaPut is the data of a media.put op, logged once the blob is stored.
type MediaPut struct {
	ID          string `json:"id"`
	MomentID    string `json:"moment_id"`
	Role        string `json:"role"`
	SHA256      string `json:"sha256"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type"`
}

// TurnStart is the data of a turn.start op.
type TurnStart struct {
	ID       string `json:"id"`
	MomentID string `json:"moment_id"`
	Mode     string `json:"mode"`
	// Seat is the seat a job turn is meant for; empty for practical and
	// recall turns, which go to the first seat.
	Seat     string `json:"seat,omitempty"`
	Job      string `json:"job,omitempty"`
	JobIndex int    `json:"job_index,omitempty"`
	Recall   string `json:"recall,omitempty"`
}

// TurnFinish is the data of a turn.finish op.
type TurnFinish struct {
	ID     string `json:"id"`
	Status string `json:"status"` // finished or failed
	Seat   string `json:"seat,omitempty"`
	Text   string `json:"text,omitempty"`
	Error  string `json:"error,omitempty"`
	// ErrorCode is why a failed turn failed (api.ReadFailCodes). Records
	// logged before it have none: the fold gives them the code their
	// Error's words give (FailCode).
	ErrorCode string `json:"error_code,omitempty"`
}

// PhraseKeep is the data of a phrase.keep op.
type PhraseKeep struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	MomentID string `json:"moment_id,omitempty"`
}

// PhraseUnkeep is the data of a phrase.unkeep op.
type PhraseUnkeep struct {
	ID string `json:"id"`
}
