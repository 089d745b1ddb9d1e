package app

import (
	"github.com/sparkfamily/spark/engine/api"
)

// The types below are what the bound methods return to the UI of the app
// itself: its status, its captures, its outbox and its settings. What the
// window shows of the moments and phrases (the read model) is package
// view's. Times are RFC 3339 strings so the generated TypeScript types
// stay exact (Wails would type a time.Time as any).

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
	// BackupFailingSince is since when the copy has been failing, as the
	// engine says (Backup.FailingSince), or, from an engine older than
	// that word, when this Spark first saw it failing; "" when it is not
	// failing. A disk unplugged for a minute is not worth a word on the
	// bar.
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
	// WordsLang is the language the words in photos are read in
	// ("eng"), or "off".
	WordsLang string `json:"words_lang"`
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
