package app

import (
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// The view types below are what the bound methods return to the UI. Times
// are RFC 3339 strings so the generated TypeScript types stay exact (Wails
// would type a time.Time as any).

// Status is what the status bar shows.
type Status struct {
	// Ready is false while starting, or when Spark could not start; then
	// Problem says why (a start code of errors.go, with the folder as its
	// Name), nil while starting.
	Ready   bool     `json:"ready"`
	Problem *UIError `json:"problem"`
	// Starting is true while Spark has not finished starting (and has not
	// failed): the UI says so.
	Starting bool `json:"starting"`
	// Engine is "local" or "remote"; EngineURL is where it is.
	Engine    string `json:"engine"`
	EngineURL string `json:"engine_url"`
	// Reachable tells whether the engine answered its last health check;
	// Refused, that it answered but refused Spark's token.
	Reachable bool `json:"reachable"`
	// Waiting counts captures and other writes (notes, edits, phrases...)
	// not yet delivered and not parked; Parked counts those waiting for
	// the user. WaitingItems and ParkedItems split the same counts by
	// what they are, so the window names what waits (frontend/src/words.ts
	// tallyWords).
	Waiting      int    `json:"waiting"`
	Parked       int    `json:"parked"`
	WaitingItems Tally  `json:"waiting_items"`
	ParkedItems  Tally  `json:"parked_items"`
	Refused      bool   `json:"refused"` // the engine refused the token (401/403)
	Version      string `json:"version"`
	// Backup is how the off-site copy of the engine in use stands, from
	// its health (nil when it keeps none, or did not answer); the status
	// bar speaks when it is far behind or failing (words.ts).
	Backup *api.BackupHealth `json:"backup"`
	// BackupFailingSince is when this Spark first saw the copy failing,
	// in the failing spell it is in now; "" when it is not failing. A
	// disk unplugged for a minute is not worth a word on the bar.
	BackupFailingSince string `json:"backup_failing_since"`
	// Pippa is whether the engine in use has a Pippa to read the photos,
	// from its health: PippaSeated or PippaNoSeat; "" when it is not
	// known (the engine did not answer, or is older than the word). With
	// PippaNoSeat the window says she is not set up, where a reading is
	// waited for, instead of promising it (words.ts).
	Pippa string `json:"pippa"`
}

// What Status.Pippa says of the engine's Pippa.
const (
	// PippaSeated: the engine has a Pippa; the readings asked for come.
	PippaSeated = "seated"
	// PippaNoSeat: the engine has none; the readings asked for wait,
	// queued, until one is set up (on this computer, in Settings).
	PippaNoSeat = "no_seat"
)

// Tally counts outbox entries and writes by what they are to Dad, in the
// Outbox's words ("Notes and changes"): Photos are captures, Notes the
// notes he wrote, Changes every other write (a caption or date edited, a
// moment deleted, a phrase kept or removed, a reading asked for, a
// recall).
type Tally struct {
	Photos  int `json:"photos"`
	Notes   int `json:"notes"`
	Changes int `json:"changes"`
}

// Total is how many the tally counts.
func (t Tally) Total() int { return t.Photos + t.Notes + t.Changes }

// CaptureResult is the outcome of capturing one file.
type CaptureResult struct {
	Path      string   `json:"path"`
	Name      string   `json:"name"`
	EntryID   string   `json:"entry_id"`
	MomentID  string   `json:"moment_id"`
	Thumb     string   `json:"thumb"` // URL of the small copy, "" on error
	Duplicate bool     `json:"duplicate"`
	Error     *UIError `json:"error"`
}

// The kinds of CaptureEvent (mirrored in frontend/src/events.ts).
const (
	CaptureKindStart  = "start"  // the batch's file names, before any is captured
	CaptureKindResult = "result" // one file's result
	CaptureKindDone   = "done"   // every file is done
)

// CaptureEvent reports a batch's progress on the "capture" event.
type CaptureEvent struct {
	Batch  string         `json:"batch"`
	Kind   string         `json:"kind"` // CaptureStart, CaptureResultKind or CaptureDone
	Total  int            `json:"total"`
	Done   int            `json:"done"`
	Names  []string       `json:"names"`
	Result *CaptureResult `json:"result"`
}

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
}

// Step is one of an outbox entry's four steps.
type Step struct {
	Name string `json:"name"` // create, copy, turn, original
	Done bool   `json:"done"`
}

// Entry is an outbox entry as the Outbox screen shows it.
type Entry struct {
	ID         string `json:"id"`
	MomentID   string `json:"moment_id"`
	Name       string `json:"name"`
	Thumb      string `json:"thumb"`
	State      string `json:"state"` // pending, parked, done
	Steps      []Step `json:"steps"`
	BytesSent  int64  `json:"bytes_sent"`
	BytesTotal int64  `json:"bytes_total"`
	Attempts   int    `json:"attempts"`
	Wait       string `json:"wait"`     // why it waits after trouble: a Wait* code (outboxapi.go), "" when not
	Detail     string `json:"detail"`   // the trouble (waiting or parked) in the system's words, for Details only
	NextTry    string `json:"next_try"` // RFC 3339, "" when not waiting
	Code       string `json:"code"`     // the engine's code when parked, worded by words.ts parkedAdvice
	Refused    bool   `json:"refused"`  // waiting because the engine refused the token
	CapturedAt string `json:"captured_at"`

	// OriginalSent is how many bytes of the original the engine holds
	// while the original is on its way (outbox.Entry's Sending), 0 when
	// it is not; of BytesTotal, the original's size.
	OriginalSent int64 `json:"original_sent"`
}

// OutboxEvent is forwarded to the UI on the "outbox" event.
type OutboxEvent struct {
	Kind      string `json:"kind"`
	EntryID   string `json:"entry_id"`
	Step      string `json:"step"`
	BytesSent int64  `json:"bytes_sent"`
	// Detail is the technical text of the last failure, for "Details"
	// only.
	Detail string `json:"detail"`
	// Code is the error code of a parked or waiting entry's last
	// failure (the engine's, or the outbox's), for the window to word.
	Code    string `json:"code"`
	NextTry string `json:"next_try"`
}

// SettingsView is what the Settings screen shows.
type SettingsView struct {
	Engine      string `json:"engine"`
	RemoteURL   string `json:"remote_url"`
	RemoteToken string `json:"remote_token"`
	LocalURL    string `json:"local_url"`
	Pippa       Pippa  `json:"pippa"`
	OllamaURL   string `json:"ollama_url"`
	DataDir     string `json:"data_dir"`
	LogDir      string `json:"log_dir"`
	// Warning, when set, is a Warn code about the engine in use: its
	// address sends the token unprotected (see AddressWarning).
	Warning string `json:"warning,omitempty"`
	// Leftovers are the outbox's files that could not be removed yet.
	Leftovers Leftovers `json:"leftovers"`
}

// Leftovers is what Settings' details say about the outbox's files that
// could not be removed from this computer yet (a program holding one open,
// as antivirus or a backup tool does on Windows): Spark retries them on its
// own. Count 0 and no Details in the usual case.
type Leftovers struct {
	Count int `json:"count"`
	// Sent, Discarded and Interrupted count them by why they are to go
	// (outbox.CountLeftovers), worded for Dad by frontend/src/words.ts
	// leftoversWords.
	Sent        int `json:"sent"`
	Discarded   int `json:"discarded"`
	Interrupted int `json:"interrupted"`
	// Details are one line per folder: its path, why it is to go, since
	// when and what the last try said (outbox.LeftoverDetail).
	Details []string `json:"details"`
}

// TestResult is the answer of Test connection.
type TestResult struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	// Code says how the test went, for the window to word: TestConnected,
	// TestNoAnswer, or the UIError code of why the address or the token
	// can't be used.
	Code string `json:"code"`
	// Address is the engine address tested, as Spark reads it ("" when
	// it reads none).
	Address string `json:"address"`
	// Detail is the technical text behind Code, for "Details".
	Detail string `json:"detail"`
	// Warning, when set, is a Warn code for Dad to read before he uses
	// this address: it sends the token unprotected (AddressWarning).
	Warning string `json:"warning,omitempty"`
}

func timeString(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func mediaView(m *api.Media) *Media {
	if m == nil {
		return nil
	}
	return &Media{ID: m.ID, Size: m.Size, ContentType: m.ContentType, URL: mediaURL(m.ID)}
}

func readingView(t api.Turn) Reading {
	return Reading{ID: t.ID, Mode: t.Mode, Seat: t.Seat, Status: t.Status, Text: t.Text, Error: t.Error, ErrorCode: t.ErrorCode,
		StartedAt: timeString(t.StartedAt), FinishedAt: timeString(t.FinishedAt)}
}

// momentView shows m to who (the zero viewer: naming no one).
func momentView(m *api.Moment, who viewer) Moment {
	v := Moment{ID: m.ID, Kind: m.Kind, Caption: m.Caption, TakenAt: timeString(m.TakenAt),
		CreatedAt: timeString(&m.CreatedAt), DeletedAt: timeString(m.DeletedAt), Copy: mediaView(m.Copy), Original: mediaView(m.Original),
		Readings: make([]Reading, 0, len(m.Turns)), AddedBy: who.other(m.Member)}
	v.OwnerOnly = v.AddedBy != "" && !who.admin
	if v.Copy != nil {
		v.Thumb = v.Copy.URL
	}
	for _, t := range m.Turns {
		v.Readings = append(v.Readings, readingView(t))
	}
	return v
}

// phraseView shows p to who (the zero viewer: naming no one).
func phraseView(p api.Phrase, who viewer) Phrase {
	v := Phrase{ID: p.ID, Text: p.Text, MomentID: p.MomentID, KeptAt: timeString(&p.KeptAt), KeptBy: who.other(p.Member)}
	v.KeeperOnly = v.KeptBy != "" && !who.admin
	return v
}
