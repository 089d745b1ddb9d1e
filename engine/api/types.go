package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// Moment kinds.
const (
	KindPhoto  = "photo"
	KindNote   = "note"
	KindRecall = "recall"
)

// Media roles.
const (
	RoleCopy     = "copy"
	RoleOriginal = "original"
)

// Turn modes. The contract's turn route takes only "practical"; "careful" is
// the mode of high-quality job turns and "recall" of quick-recall turns.
const (
	ModePractical = "practical"
	ModeCareful   = "careful"
	ModeRecall    = "recall"
)

// Turn statuses.
const (
	TurnQueued   = "queued"
	TurnRunning  = "running"
	TurnFinished = "finished"
	TurnFailed   = "failed"
)

// Op names in the log.
const (
	OpMomentCreate = "moment.create"
	OpMomentEdit   = "moment.edit"
	OpMomentDelete = "moment.delete"
	OpMediaPut     = "media.put"
	OpTurnStart    = "turn.start"
	OpTurnFinish   = "turn.finish"
	OpPhraseKeep   = "phrase.keep"
	OpPhraseUnkeep = "phrase.unkeep"
	// OpMomentRestore [extension] brings a deleted moment back.
	OpMomentRestore = "moment.restore"
	// OpMomentWords [extension] keeps the words found in a moment's photo.
	OpMomentWords = "moment.words"
	// OpMomentPurge [extension] removes for good a moment deleted longer
	// ago than the engine keeps deleted moments, with its photos: the
	// engine's own op, never a client's.
	OpMomentPurge = "moment.purge"
)

// Limits of the contract.
const (
	MaxJSONBody      = 1 << 20 // 1 MiB
	DefaultPageLimit = 50
	MaxPageLimit     = 200
	MaxOpsLimit      = 1000
	// MaxPhraseLimit is the most phrases a page of GET /v1/phrases holds,
	// and its default [extension].
	MaxPhraseLimit = 1000
)

// Moment is a captured moment with its media and turns.
type Moment struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Caption   string     `json:"caption"`
	TakenAt   *time.Time `json:"taken_at"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	DeletedAt *time.Time `json:"deleted_at"`
	Copy      *Media     `json:"copy"`
	Original  *Media     `json:"original"`
	Turns     []Turn     `json:"turns"`
	// TurnsNext [extension] is set when the moment holds more turns than
	// its answer carries (they are cut at about 256 KiB, or 200 turns):
	// the after of GET /v1/moments/{id}/turns that pages on through the
	// rest. Absent otherwise.
	TurnsNext *string `json:"turns_next,omitempty"`
	// Member [extension] is the family member who added the moment (the
	// member of the token whose request created it, see GET /v1/ops's
	// member), for the window to say whose it is. Absent for moments the
	// engine made itself and those added before authors were recorded.
	Member string `json:"member,omitempty"`
	// Alternatives [extension] are the other captions the moment keeps:
	// each one written on another computer from the same caption as the
	// one shown, and not merged into it. Absent when there are none.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Words [extension] are the words found in the moment's photo, by a
	// reader of text on the computer that first showed it; absent until
	// then.
	Words *Words `json:"words,omitempty"`
}

// Words [extension] are the words found in a photo: its text as read, line
// by line, and the language it was read in (a BCP 47 tag, "eng" style
// codes of the reader allowed).
type Words struct {
	Text string `json:"text"`
	Lang string `json:"lang"`
}

// WordsResponse answers POST /v1/moments/{id}/words [extension]: the
// moment's words, and whether this request wrote them.
type WordsResponse struct {
	Words   *Words `json:"words"`
	Created bool   `json:"created"`
}

// Alternative [extension] is a caption kept beside the moment's own: the
// words one computer wrote when another had changed the caption first.
type Alternative struct {
	// ID names it within its moment (the same words, the same id, on
	// every engine); PATCH's dismiss takes it.
	ID      string `json:"id"`
	Caption string `json:"caption"`
	// WrittenAt is when it was typed, WrittenBy the name of the computer
	// (its token) it was typed on; absent when not known (a caption
	// written before edits carried their base).
	WrittenAt *time.Time `json:"written_at,omitempty"`
	WrittenBy string     `json:"written_by,omitempty"`
}

// Media is a stored file: a moment's small copy or its original.
type Media struct {
	ID          string `json:"id"`
	MomentID    string `json:"moment_id"`
	Role        string `json:"role"`
	SHA256      string `json:"sha256"` // lower-case hex
	Size        int64  `json:"size"`
	ContentType string `json:"content_type"`
}

// Turn is one reading asked of Pippa through a brain seat.
type Turn struct {
	ID              string     `json:"id"`
	MomentID        string     `json:"moment_id"`
	Mode            string     `json:"mode"`
	Seat            string     `json:"seat"`
	Status          string     `json:"status"`
	Text            string     `json:"text"`
	Error           string     `json:"error"`
	ClientRequestID string     `json:"client_request_id"`
	StartedAt       *time.Time `json:"started_at"`
	FinishedAt      *time.Time `json:"finished_at"`
	// ErrorCode [extension] says why a failed turn failed: one of
	// ReadFailCodes (readfail.go). Absent unless the turn failed, and from
	// engines older than the code.
	ErrorCode string `json:"error_code,omitempty"`
}

// Phrase is a kept phrase (an active mark).
type Phrase struct {
	ID             string     `json:"id"`
	Text           string     `json:"text"`
	MomentID       string     `json:"moment_id,omitempty"`
	KeptAt         time.Time  `json:"kept_at"`
	LastRecalledAt *time.Time `json:"last_recalled_at"`
	// Member [extension] is the family member who keeps the phrase: only
	// they (or an admin token) may remove it. Absent for phrases the
	// engine kept itself and those kept before authors were recorded.
	Member string `json:"member,omitempty"`
}

// MemberHeader [extension] names, on a request with an admin token, the
// family member the request writes for: its ops keep the admin token's
// name as their author and name this member (push sends each op's member,
// so that a Move keeps who added what). A device token's header is
// ignored: a device writes only as its own member.
const MemberHeader = "Spark-Member"

// Me [extension] is GET /v1/me's answer: who the engine takes a request's
// token for. Member is the family member it acts for (an admin token's
// MemberHeader names another); Scope is the token's, "device" or "admin".
// A window names the members who added what it shows, except its own.
type Me struct {
	Member string `json:"member"`
	Scope  string `json:"scope"`
}

// MePath is the route of GET /v1/me [extension].
const MePath = "/v1/me"

// Op is one record of the log as served by GET /v1/ops.
type Op struct {
	Seq             uint64    `json:"seq"`
	At              time.Time `json:"at"`
	Op              string    `json:"op"`
	ClientRequestID string    `json:"client_request_id,omitempty"`
	// Author [extension] is the name of the token whose request wrote the
	// op; left out for the engine's own ops and for those logged before
	// authors were recorded.
	Author string `json:"author,omitempty"`
	// Member [extension] is the family member the op was written for:
	// the member of the author's token, or the member an admin token
	// wrote as (the Spark-Member header; push keeps authorship so).
	// Left out where Author is.
	Member string          `json:"member,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// Request bodies.

// CreateMomentRequest is the body of POST /v1/moments.
type CreateMomentRequest struct {
	ID              string     `json:"id,omitempty"`
	ClientRequestID string     `json:"client_request_id,omitempty"`
	Kind            string     `json:"kind"`
	Caption         string     `json:"caption,omitempty"`
	TakenAt         *time.Time `json:"taken_at,omitempty"`
	CopyID          string     `json:"copy_id,omitempty"`
	OriginalID      string     `json:"original_id,omitempty"`
	// CreatedAt [extension] is when the moment was first added, on
	// another engine: push and a move send it, so that a moment moved
	// keeps its date. Absent, the moment is added now.
	CreatedAt *time.Time `json:"created_at,omitempty"`
}

// EditMomentRequest is the body of PATCH /v1/moments/{id}; nil fields are left alone.
type EditMomentRequest struct {
	Caption *string    `json:"caption,omitempty"`
	TakenAt *time.Time `json:"taken_at,omitempty"`
	// BaseCaption [extension] is the caption the new one was written
	// from, as the writer saw it. When the moment's caption has changed
	// since, neither is lost: they merge word by word, or the new one
	// becomes the caption and the other an alternative. Absent, the
	// caption is replaced, as in the contract.
	BaseCaption *string `json:"base_caption,omitempty"`
	// WrittenAt [extension] is when the caption was typed (its
	// alternative's written_at); a time after the engine's is the
	// engine's.
	WrittenAt *time.Time `json:"written_at,omitempty"`
	// WrittenBy [extension] names the computer it was typed on, kept
	// from an admin token only (push and a move, carrying an edit
	// across); others are named by their token.
	WrittenBy string `json:"written_by,omitempty"`
	// Dismiss [extension] are ids of alternatives to set aside.
	Dismiss []string `json:"dismiss,omitempty"`
	// ClientRequestID [extension] makes the edit a write the engine
	// remembers: a repeat (a retry after a lost reply) writes nothing and
	// answers the moment as it is, so that an edit sent twice never
	// lands twice, after edits from elsewhere. Each new text needs its
	// own id.
	ClientRequestID string `json:"client_request_id,omitempty"`
}

// EditMomentResponse is the answer to PATCH /v1/moments/{id}.
type EditMomentResponse struct {
	Moment *Moment `json:"moment"`
	// Restored [extension] is true when the edit brought the moment back
	// from Recently deleted: an edit is never turned down.
	Restored bool `json:"restored,omitempty"`
}

// MaxDismiss is how many alternatives one edit may dismiss.
const MaxDismiss = 100

// MaxWrittenByLen bounds an edit's written_by: a token's name (engine/auth
// and oplog.MaxAuthorLen).
const MaxWrittenByLen = 64

// CheckEdit refuses an edit the engine would never write: a caption or
// base_caption too long (caption_too_long), a bad taken_at or request id,
// and, as bad_edit, a written_by longer than a token's name or not UTF-8,
// or a dismiss of more than MaxDismiss ids or of one that is not an
// alternative's. The engine applies it to a request, and a replica or a
// push to an op read from another engine's log.
func CheckEdit(req EditMomentRequest) error {
	if req.ClientRequestID != "" {
		if err := CheckRequestID(req.ClientRequestID); err != nil {
			return err
		}
	}
	if err := CheckTakenAt(req.TakenAt); err != nil {
		return err
	}
	for _, c := range []*string{req.Caption, req.BaseCaption} {
		if c == nil {
			continue
		}
		if err := CheckCaption(*c); err != nil {
			return err
		}
	}
	if len(req.WrittenBy) > MaxWrittenByLen || !utf8.ValidString(req.WrittenBy) {
		return Errorf(CodeBadEdit, "written_by has %d bytes or is not UTF-8; it names a computer's token, at most %d bytes of UTF-8", len(req.WrittenBy), MaxWrittenByLen)
	}
	if len(req.Dismiss) > MaxDismiss {
		return Errorf(CodeBadEdit, "an edit may dismiss at most %d alternatives, not %d", MaxDismiss, len(req.Dismiss))
	}
	for _, d := range req.Dismiss {
		if !IsAlternativeID(d) {
			return Errorf(CodeBadEdit, "dismiss holds %.40q, which is not an alternative's id (16 hex digits)", d)
		}
	}
	return nil
}

// AlternativeID names an alternative caption within its moment: the
// first 16 hex digits of its SHA-256, so that the same words are the
// same alternative on every engine, replica and move, and a client that
// shows an alternative can name it to dismiss it.
func AlternativeID(caption string) string {
	sum := sha256.Sum256([]byte(caption))
	return hex.EncodeToString(sum[:8])
}

// IsAlternativeID reports whether s has the form of an alternative's id:
// 16 lower-case hex digits.
func IsAlternativeID(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// StartTurnRequest is the body of POST /v1/moments/{id}/turns.
type StartTurnRequest struct {
	ClientRequestID string `json:"client_request_id"`
	Mode            string `json:"mode"`
}

// StartJobRequest is the body of POST /v1/moments/{id}/jobs.
type StartJobRequest struct {
	ID string `json:"id"`
}

// StartRecallRequest is the body of POST /v1/recalls.
type StartRecallRequest struct {
	ID string `json:"id"`
}

// KeepPhraseRequest is the body of POST /v1/phrases.
type KeepPhraseRequest struct {
	Text     string `json:"text"`
	MomentID string `json:"moment_id,omitempty"`
}

// Responses.

type MomentResponse struct {
	Moment  *Moment `json:"moment"`
	Created *bool   `json:"created,omitempty"`
}

type MomentsPage struct {
	Moments []Moment `json:"moments"`
	Next    *string  `json:"next"`
}

type DeleteResponse struct {
	Deleted bool `json:"deleted"`
}

// RecentlyDeletedFor is how long a deleted moment is listed in Recently
// deleted (GET /v1/moments?deleted=true [extension]), and how long, by
// default, an engine keeps it before it purges it (moment.purge).
const RecentlyDeletedFor = 30 * 24 * time.Hour

// RestoreResponse is the answer of POST /v1/moments/{id}/restore
// [extension]: the moment, and whether this request brought it back
// (false: it was not deleted, and nothing was written).
type RestoreResponse struct {
	Moment   *Moment `json:"moment"`
	Restored bool    `json:"restored"`
}

type MediaResponse struct {
	Media   *Media `json:"media"`
	Created bool   `json:"created"`
}

type TurnResponse struct {
	Turn    *Turn `json:"turn"`
	Created *bool `json:"created,omitempty"`
}

type JobResponse struct {
	JobID   string `json:"job_id"`
	Turns   []Turn `json:"turns"`
	Created bool   `json:"created"`
}

type RecallResponse struct {
	Moment  *Moment `json:"moment"`
	Turn    *Turn   `json:"turn"`
	Created bool    `json:"created"`
}

type PhraseResponse struct {
	Phrase  *Phrase `json:"phrase"`
	Created bool    `json:"created"`
}

type PhrasesResponse struct {
	Phrases []Phrase `json:"phrases"`
	// Next [extension] is the after of the following page; absent on the
	// last one, so that an answer of one page is the contract's own.
	Next *uint64 `json:"next,omitempty"`
}

// TurnsResponse [extension] is a page of a moment's turns:
// GET /v1/moments/{id}/turns.
type TurnsResponse struct {
	Turns []Turn  `json:"turns"`
	Next  *string `json:"next"`
}

type RemovedResponse struct {
	Removed bool `json:"removed"`
}

type OpsPage struct {
	Ops  []Op    `json:"ops"`
	Next *uint64 `json:"next"`
}

// Health is the answer of GET /v1/health. OK is false while the engine
// cannot write (a full disk, say); Reason then says why, in words for the
// engine's operator. Reads are served either way.
type Health struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Seq     uint64 `json:"seq"`
	Reason  string `json:"reason,omitempty"`
	// EngineID [extension] names the engine: a ULID kept in its data
	// folder, new when the folder is. A replica stores it so that it never
	// mixes two engines' logs. Older engines send none.
	EngineID string `json:"engine_id,omitempty"`
	// Backup [extension] is the state of the engine's off-site copy,
	// absent when it ships none.
	Backup *BackupHealth `json:"backup,omitempty"`
	// Pippa [extension] says whether the engine has Pippa to ask. Older
	// engines send none: a client then does not know.
	Pippa *PippaHealth `json:"pippa,omitempty"`
}

// PippaHealth [extension] is whether an engine can have its photos read,
// in Health.Pippa. It names no seat and holds no secret: health needs no
// token.
type PippaHealth struct {
	// Seated is true when the engine has at least one seat (a Pippa it
	// asks). While it is false, the readings asked for wait, queued, and
	// are read as soon as a seat is set; none fails for the want of one.
	Seated bool `json:"seated"`
}
