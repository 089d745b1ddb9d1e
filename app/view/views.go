package view

import (
	"net/url"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// The view types below are what the bound methods return to the UI of
// the moments, their readings and the phrases, and of Dad's writes. Times
// are RFC 3339 strings so the generated TypeScript types stay exact (Wails
// would type a time.Time as any).

// Media is a stored file of a moment.
type Media struct {
	ID          string `json:"id"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type"`
	URL         string `json:"url"` // served to the webview by the app
}

// Reading is one of Pippa's readings (a turn).
type Reading struct {
	ID     string `json:"id"`
	Mode   string `json:"mode"`
	Seat   string `json:"seat"`
	Status string `json:"status"` // queued, running, finished, failed; waiting (ReadingWaiting)
	Text   string `json:"text"`
	Error  string `json:"error"`
	// ErrorCode is why a failed reading failed (api.ReadFailCodes), ""
	// for a reading that did not fail or from an engine older than the
	// codes; Error is the engine's words, for "Details".
	ErrorCode  string `json:"error_code"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
}

// ReadingWaiting is the Status of a reading asked for on this computer and
// not sent to the engine yet.
const ReadingWaiting = "waiting"

// Moment is a moment as the UI shows it: from the engine, or (Pending)
// still in the outbox.
type Moment struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Caption   string `json:"caption"`
	TakenAt   string `json:"taken_at"`
	CreatedAt string `json:"created_at"`
	// DeletedAt is, in Recently deleted, when the moment was deleted (RFC
	// 3339); "" for a live moment.
	DeletedAt string    `json:"deleted_at"`
	Thumb     string    `json:"thumb"`
	Copy      *Media    `json:"copy"`
	Original  *Media    `json:"original"`
	Readings  []Reading `json:"readings"`
	// Pending is true for a capture the engine does not have yet; EntryID
	// is its outbox entry.
	Pending bool   `json:"pending"`
	EntryID string `json:"entry_id"`
	Name    string `json:"name"`
	// WaitsFor is "" when the engine has every write Dad made to this
	// moment; otherwise what one waits for on this computer: a Waits
	// code of writes.go (the engine, or, refused, Dad in the Outbox),
	// worded by the window (words.ts waitingWords).
	WaitsFor string `json:"waits_for"`
	// CarefulAsked is true when a careful reading is waiting in the
	// outbox or started; CarefulJobID is its job.
	CarefulAsked bool   `json:"careful_asked"`
	CarefulJobID string `json:"careful_job_id"`
	// FullPhoto says, of a photo the engine has without its full photo
	// (its original), what becomes of that: FullSending, FullRefused or
	// FullNone; "" for any other moment.
	FullPhoto string `json:"full_photo"`
	// AddedBy is the name of the family member who added the moment, when
	// it is someone else than the member Spark's key belongs to; "" for
	// Dad's own, for one added before members, and whenever Spark does not
	// know whose key it holds (viewer.go): the window never guesses.
	AddedBy string `json:"added_by"`
	// OwnerOnly is true when only that member may change or delete the
	// moment: Spark's key is a family member's device key, not the engine
	// owner's, so the window offers no caption to edit and no Delete.
	OwnerOnly bool `json:"owner_only"`
	// Alternatives are the other captions the moment keeps: typed on
	// another computer from the caption this one was typed from, and not
	// merged into it; Dad chooses one ("Use this one") or sets it aside.
	Alternatives []Alternative `json:"alternatives"`
	// Words are the words found in the photo ("" when none yet), and
	// WordsLang the language they were read in.
	Words     string `json:"words"`
	WordsLang string `json:"words_lang"`
	// BroughtBack is true, in the answer to Dad's edit only, when the
	// edit brought the moment back from Recently deleted (deleted on
	// another computer while he typed): the window says so.
	BroughtBack bool `json:"brought_back"`
}

// Alternative is a caption kept beside the moment's own.
type Alternative struct {
	Caption string `json:"caption"`
	// WrittenAt is when it was typed (RFC 3339), "" when not known;
	// WrittenBy the computer it was typed on, "" when not known.
	WrittenAt string `json:"written_at"`
	WrittenBy string `json:"written_by"`
}

// The values of Moment.FullPhoto.
const (
	// FullSending: the outbox is sending the full photo.
	FullSending = "sending"
	// FullRefused: the engine did not take the full photo (too large,
	// say); it waits in the Outbox for Dad to choose.
	FullRefused = "refused"
	// FullNone: nothing will send it: Dad kept the moment without it, or
	// it never came from where the moment was made.
	FullNone = "none"
)

// Page is one page of moments, newest first; Next is the cursor of the
// following page, "" at the end.
type Page struct {
	Moments []Moment `json:"moments"`
	Next    string   `json:"next"`
}

// Phrase is a kept phrase, with what the Phrases screen shows of the
// moment it came from (when it names one): its small copy and caption, so
// the phrase links back to it.
type Phrase struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	MomentID string `json:"moment_id"`
	KeptAt   string `json:"kept_at"`
	// MomentThumb is the URL of the moment's small copy, "" when it has
	// none; MomentKind and MomentCaption describe it; MomentGone is true
	// when the moment was deleted or could not be read.
	MomentThumb   string `json:"moment_thumb"`
	MomentKind    string `json:"moment_kind"`
	MomentCaption string `json:"moment_caption"`
	MomentGone    bool   `json:"moment_gone"`
	// WaitsFor is "" once the engine has the keep; otherwise what it
	// waits for on this computer (a Waits code, as Moment.WaitsFor).
	WaitsFor string `json:"waits_for"`
	// KeptBy is the name of the family member who keeps the phrase, when
	// it is someone else (as Moment.AddedBy). KeeperOnly is true when only
	// that member may remove it: Spark's key is a family member's device
	// key, not the engine owner's, so the window offers no Remove.
	KeptBy     string `json:"kept_by"`
	KeeperOnly bool   `json:"keeper_only"`
}

// Recall is a quick recall: its moment and its reading.
type Recall struct {
	MomentID string  `json:"moment_id"`
	Reading  Reading `json:"reading"`
	// WaitsFor is set while the recall waits on this computer (a Waits
	// code, as Moment.WaitsFor); Reading is then the zero Reading (ID "").
	WaitsFor string `json:"waits_for"`
}

// Careful is what AskCareful returns: the job and its readings, one per
// brain seat (none while the job waits on this computer).
type Careful struct {
	JobID    string    `json:"job_id"`
	Readings []Reading `json:"readings"`
	// WaitsFor is set while the job waits on this computer (a Waits code,
	// as Moment.WaitsFor).
	WaitsFor string `json:"waits_for"`
}

// The states of Write and WriteEvent.
const (
	WriteStateWaiting   = "waiting"
	WriteStateParked    = "parked"
	WriteStateSent      = "sent"
	WriteStateDiscarded = "discarded" // WriteEvent only: removed unsent
)

// Write is a write Dad made (other than a photo) as the Outbox screen
// shows it: its kind and its data, which the window words (words.ts
// writeWhat: Caption “letter from the council”).
type Write struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // an outbox.WriteKinds kind
	// Text is what Dad typed of a note, a caption or a phrase kept, and
	// the text of a phrase removed; "" for any other kind.
	Text string `json:"text"`
	// TakenAt is the date taken a taken_at write sets, RFC 3339.
	TakenAt  string `json:"taken_at"`
	MomentID string `json:"moment_id"`
	State    string `json:"state"` // a WriteState* but discarded
	// Code is, for parked, the engine's code of why it refused the write
	// (an engine or app error code), for the window to word; Detail is
	// the engine's own text, for "Details" only.
	Code   string `json:"code"`
	Detail string `json:"detail"`
	// Owner is, for a write the engine last turned down as another family
	// member's to make (forbidden; parked, or waiting to be tried again),
	// that member's name when Spark knows it: who added the moment, or
	// keeps the phrase (as Moment.AddedBy); else "".
	Owner string `json:"owner"`
	// WaitsFor is, for waiting, what every waiting write waits for (a
	// Waits code, as Moment.WaitsFor).
	WaitsFor string `json:"waits_for"`
	NextTry  string `json:"next_try"` // RFC 3339 or ""
}

// WriteEvent is sent to the UI on the "write" event whenever a write is
// sent, parked, retried or discarded.
type WriteEvent struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	MomentID string `json:"moment_id"`
	State    string `json:"state"` // one of the WriteState*
	// BroughtBack is true when the write, sent, brought its moment back
	// from Recently deleted (an edit of a moment deleted elsewhere): the
	// window says so whenever the Outbox sends it.
	BroughtBack bool `json:"brought_back,omitempty"`
}

// TimeString is t as the window reads a time: RFC 3339 in UTC, "" for
// none.
func TimeString(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// MediaPrefix is the URL prefix the webview loads a stored file of a
// moment from (app.MediaHandler serves it).
const MediaPrefix = "/media/"

// MediaURL is where the webview loads media file id from.
func MediaURL(id string) string { return MediaPrefix + url.PathEscape(id) }

// OutboxCopyPrefix is the URL prefix the webview loads the small copy of
// a capture from, by its outbox entry (app.MediaHandler serves it: from
// the outbox, or the engine once delivered).
const OutboxCopyPrefix = "/outbox-copy/"

// OutboxCopyURL is where the webview loads the small copy of outbox entry
// entryID from.
func OutboxCopyURL(entryID string) string { return OutboxCopyPrefix + url.PathEscape(entryID) }

// MediaView shows a stored file of a moment; nil for none.
func MediaView(m *api.Media) *Media {
	if m == nil {
		return nil
	}
	return &Media{ID: m.ID, Size: m.Size, ContentType: m.ContentType, URL: MediaURL(m.ID)}
}

// ReadingView shows one of Pippa's readings.
func ReadingView(t api.Turn) Reading {
	return Reading{ID: t.ID, Mode: t.Mode, Seat: t.Seat, Status: t.Status, Text: t.Text, Error: t.Error, ErrorCode: t.ErrorCode,
		StartedAt: TimeString(t.StartedAt), FinishedAt: TimeString(t.FinishedAt)}
}

// MomentView shows m to who (the zero Viewer: naming no one).
func MomentView(m *api.Moment, who Viewer) Moment {
	v := Moment{ID: m.ID, Kind: m.Kind, Caption: m.Caption, TakenAt: TimeString(m.TakenAt),
		CreatedAt: TimeString(&m.CreatedAt), DeletedAt: TimeString(m.DeletedAt), Copy: MediaView(m.Copy), Original: MediaView(m.Original),
		Readings: make([]Reading, 0, len(m.Turns)), AddedBy: who.Other(m.Member)}
	v.OwnerOnly = v.AddedBy != "" && !who.Admin
	if v.Copy != nil {
		v.Thumb = v.Copy.URL
	}
	for _, t := range m.Turns {
		v.Readings = append(v.Readings, ReadingView(t))
	}
	v.Alternatives = make([]Alternative, 0, len(m.Alternatives))
	for _, a := range m.Alternatives {
		v.Alternatives = append(v.Alternatives, Alternative{Caption: a.Caption, WrittenAt: TimeString(a.WrittenAt), WrittenBy: a.WrittenBy})
	}
	if m.Words != nil {
		v.Words, v.WordsLang = m.Words.Text, m.Words.Lang
	}
	return v
}

// PhraseView shows p to who (the zero Viewer: naming no one).
func PhraseView(p api.Phrase, who Viewer) Phrase {
	v := Phrase{ID: p.ID, Text: p.Text, MomentID: p.MomentID, KeptAt: TimeString(&p.KeptAt), KeptBy: who.Other(p.Member)}
	v.KeeperOnly = v.KeptBy != "" && !who.Admin
	return v
}

// PendingView shows a capture the engine does not have yet (still in the
// outbox, or delivered but not in the replica yet) as a moment.
func PendingView(e *outbox.Entry) Moment {
	return Moment{ID: e.MomentID, Kind: api.KindPhoto, TakenAt: TimeString(e.TakenAt), CreatedAt: TimeString(&e.CapturedAt),
		Thumb: OutboxCopyURL(e.ID), Pending: true, EntryID: e.ID, Name: e.Name, Readings: []Reading{}, Alternatives: []Alternative{}}
}

// SortNewestFirst orders by moment id, which is a ULID minted at capture.
func SortNewestFirst(ms []Moment) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].ID > ms[j-1].ID; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}
