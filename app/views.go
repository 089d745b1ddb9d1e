package app

import (
	"time"

	"github.com/sparkfamily/spark/api"
)

// The view types below are what the bound methods return to the UI. Times
// are RFC 3339 strings so the generated TypeScript types stay exact (Wails
// would type a time.Time as any).

// Status is what the status bar shows.
type Status struct {
	// Ready is false while starting, or when Spark could not start; then
	// Problem says why and what to do.
	Ready   bool   `json:"ready"`
	Problem string `json:"problem"`
	// Starting is true while Spark has not finished starting (and has not
	// failed): the UI says so instead of showing Problem as a failure.
	Starting bool `json:"starting"`
	// Engine is "local" or "remote"; EngineURL is where it is.
	Engine    string `json:"engine"`
	EngineURL string `json:"engineURL"`
	// Reachable tells whether the engine answered its last health check;
	// Reason says in plain words why not.
	Reachable bool   `json:"reachable"`
	Reason    string `json:"reason"`
	// Waiting counts captures and other writes (notes, edits, phrases...)
	// not yet delivered and not parked; Parked counts those waiting for
	// the user. WaitingItems and ParkedItems split the same counts by
	// what they are, so the window names what waits (frontend/src/words.ts
	// tallyWords).
	Waiting      int    `json:"waiting"`
	Parked       int    `json:"parked"`
	WaitingItems Tally  `json:"waitingItems"`
	ParkedItems  Tally  `json:"parkedItems"`
	Refused      bool   `json:"refused"` // the engine refused the token (401/403)
	Version      string `json:"version"`
}

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
	EntryID   string   `json:"entryID"`
	MomentID  string   `json:"momentID"`
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
	ContentType string `json:"contentType"`
	URL         string `json:"url"` // served to the webview by the app
}

// Reading is one of Pippa's readings (a turn).
type Reading struct {
	ID         string `json:"id"`
	Mode       string `json:"mode"`
	Seat       string `json:"seat"`
	Status     string `json:"status"` // queued, running, finished, failed; waiting (ReadingWaiting)
	Text       string `json:"text"`
	Error      string `json:"error"`
	StartedAt  string `json:"startedAt"`
	FinishedAt string `json:"finishedAt"`
}

// ReadingWaiting is the Status of a reading asked for on this computer and
// not sent to the engine yet.
const ReadingWaiting = "waiting"

// Moment is a moment as the UI shows it: from the engine, or (Pending)
// still in the outbox.
type Moment struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Caption   string    `json:"caption"`
	TakenAt   string    `json:"takenAt"`
	CreatedAt string    `json:"createdAt"`
	Thumb     string    `json:"thumb"`
	Copy      *Media    `json:"copy"`
	Original  *Media    `json:"original"`
	Readings  []Reading `json:"readings"`
	// Pending is true for a capture the engine does not have yet; EntryID
	// is its outbox entry.
	Pending bool   `json:"pending"`
	EntryID string `json:"entryID"`
	Name    string `json:"name"`
	// Waiting is "" when the engine has every write Dad made to this
	// moment; otherwise a sentence for him saying it waits on this
	// computer.
	Waiting string `json:"waiting"`
	// CarefulAsked is true when a careful reading is waiting in the
	// outbox or started; CarefulJobID is its job.
	CarefulAsked bool   `json:"careful_asked"`
	CarefulJobID string `json:"careful_job_id"`
}

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
	MomentID string `json:"momentID"`
	KeptAt   string `json:"keptAt"`
	// MomentThumb is the URL of the moment's small copy, "" when it has
	// none; MomentKind and MomentCaption describe it; MomentGone is true
	// when the moment was deleted or could not be read.
	MomentThumb   string `json:"momentThumb"`
	MomentKind    string `json:"momentKind"`
	MomentCaption string `json:"momentCaption"`
	MomentGone    bool   `json:"momentGone"`
	// Waiting is "" once the engine has the keep; otherwise a sentence
	// for Dad saying it waits on this computer.
	Waiting string `json:"waiting"`
}

// Recall is a quick recall: its moment and its reading.
type Recall struct {
	MomentID string  `json:"momentID"`
	Reading  Reading `json:"reading"`
	// Waiting is set while the recall waits on this computer; Reading is
	// then the zero Reading (ID "").
	Waiting string `json:"waiting"`
}

// Careful is what AskCareful returns: the job and its readings, one per
// brain seat (none while the job waits on this computer).
type Careful struct {
	JobID    string    `json:"job_id"`
	Readings []Reading `json:"readings"`
	Waiting  string    `json:"waiting"`
}

// The kinds of Write.
const (
	WriteNote    = "note"
	WriteCaption = "caption"
	WriteTakenAt = "taken_at"
	WriteDelete  = "delete"
	WriteKeep    = "keep"
	WriteUnkeep  = "unkeep"
	WriteCareful = "careful"
	WriteAgain   = "again"
	WriteRecall  = "recall"
)

// The states of Write and WriteEvent.
const (
	WriteStateWaiting   = "waiting"
	WriteStateParked    = "parked"
	WriteStateSent      = "sent"
	WriteStateDiscarded = "discarded" // WriteEvent only: removed unsent
)

// Write is a write Dad made (other than a photo) as the Outbox screen
// shows it.
type Write struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"` // one of the Write* kinds
	What     string `json:"what"` // in plain words: Caption "letter from the council"
	MomentID string `json:"moment_id"`
	State    string `json:"state"`    // a WriteState* but discarded
	Problem  string `json:"problem"`  // for parked: what the engine refused, in Dad's words
	Waiting  string `json:"waiting"`  // for waiting: the sentence every waiting write shows
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
	Name  string `json:"name"`  // create, copy, turn, original
	Label string `json:"label"` // in words
	Done  bool   `json:"done"`
}

// Entry is an outbox entry as the Outbox screen shows it.
type Entry struct {
	ID         string `json:"id"`
	MomentID   string `json:"momentID"`
	Name       string `json:"name"`
	Thumb      string `json:"thumb"`
	State      string `json:"state"` // pending, parked, done
	Steps      []Step `json:"steps"`
	BytesSent  int64  `json:"bytesSent"`
	BytesTotal int64  `json:"bytesTotal"`
	Attempts   int    `json:"attempts"`
	Reason     string `json:"reason"`  // why it waits, in words
	NextTry    string `json:"nextTry"` // RFC 3339, "" when not waiting
	Code       string `json:"code"`    // the engine's code when parked
	Message    string `json:"message"` // the engine's message when parked
	Refused    bool   `json:"refused"` // waiting because the engine refused the token
	CapturedAt string `json:"capturedAt"`
}

// OutboxEvent is forwarded to the UI on the "outbox" event.
type OutboxEvent struct {
	Kind      string `json:"kind"`
	EntryID   string `json:"entryID"`
	Step      string `json:"step"`
	BytesSent int64  `json:"bytesSent"`
	Reason    string `json:"reason"`
	NextTry   string `json:"nextTry"`
}

// SettingsView is what the Settings screen shows.
type SettingsView struct {
	Engine      string `json:"engine"`
	RemoteURL   string `json:"remoteURL"`
	RemoteToken string `json:"remoteToken"`
	LocalURL    string `json:"localURL"`
	Pippa       Pippa  `json:"pippa"`
	OllamaURL   string `json:"ollamaURL"`
	DataDir     string `json:"dataDir"`
	LogDir      string `json:"logDir"`
	// Warning, when set, is a sentence for Dad about the engine in use:
	// its address sends the token unprotected (see AddressWarning).
	Warning string `json:"warning,omitempty"`
	// Leftovers are the outbox's files that could not be removed yet.
	Leftovers Leftovers `json:"leftovers"`
}

// Leftovers is what Settings' details say about the outbox's files that
// could not be removed from this computer yet (a program holding one open,
// as antivirus or a backup tool does on Windows): Spark retries them on its
// own. Count 0, Message "" and no Details in the usual case.
type Leftovers struct {
	Count int `json:"count"`
	// Message is the sentence for Dad (outbox.LeftoversSummary), without
	// paths.
	Message string `json:"message"`
	// Details are one line per folder: its path, why it is to go, since
	// when and what the last try said (outbox.LeftoverDetail).
	Details []string `json:"details"`
}

// TestResult is the answer of Test connection.
type TestResult struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Message string `json:"message"`
	// Warning, when set, is a sentence for Dad to read before he uses
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
	return Reading{ID: t.ID, Mode: t.Mode, Seat: t.Seat, Status: t.Status, Text: t.Text, Error: t.Error,
		StartedAt: timeString(t.StartedAt), FinishedAt: timeString(t.FinishedAt)}
}

func momentView(m *api.Moment) Moment {
	v := Moment{ID: m.ID, Kind: m.Kind, Caption: m.Caption, TakenAt: timeString(m.TakenAt),
		CreatedAt: timeString(&m.CreatedAt), Copy: mediaView(m.Copy), Original: mediaView(m.Original),
		Readings: make([]Reading, 0, len(m.Turns))}
	if v.Copy != nil {
		v.Thumb = v.Copy.URL
	}
	for _, t := range m.Turns {
		v.Readings = append(v.Readings, readingView(t))
	}
	return v
}

func phraseView(p api.Phrase) Phrase {
	return Phrase{ID: p.ID, Text: p.Text, MomentID: p.MomentID, KeptAt: timeString(&p.KeptAt)}
}
