package app

import (
	"errors"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
)

// Error codes the UI acts on, besides the engine's own contract codes. The
// window words each (frontend/src/words.ts's problem); frontend/src/codes.ts
// holds them as TypeScript constants, checked against these by
// TestCodesTS.
const (
	CodeOffline      = "offline"      // the engine could not be reached
	CodeUnauthorized = "unauthorized" // the engine refused the token (401/403)
	CodeNotReady     = "not_ready"    // the app did not start (see Status.Problem)
	CodeCanceled     = "canceled"     // the user closed a dialog
	CodeFailed       = "failed"       // anything else

	// What the user gave that cannot be used, each its own code.
	CodeNotConnectionText = "not_connection_text" // a connection text that is not one line with a #
	CodeNoEngineAddress   = "no_engine_address"   // a connection text that does not start with an address
	CodeNotEngineAddress  = "not_engine_address"  // Name is what was given
	CodeNoToken           = "no_token"            // a family engine without its token
	CodeNotPippaAddress   = "not_pippa_address"   // Name is what was given
	CodeNoPippaModel      = "no_pippa_model"      // a Pippa address without a model
	CodeNotOutboxEntry    = "not_outbox_entry"    // Name is the id given
	CodeOriginalDelivered = "original_delivered"  // Name is the photo's name
	CodeBadTakenAt        = "bad_taken_at"        // a date and time that do not read
	CodeEmptyNote         = "empty_note"          // a note with nothing in it
	CodeNoWords           = "no_words"            // a phrase kept with no words selected
	CodeBadPhrase         = "bad_phrase"          // a phrase the engine would refuse; Detail says why
	CodeNoOtherEngine     = "no_other_engine"     // a move with only one engine
	CodeNoFamilyCopy      = "no_family_copy"      // a rebuild with the engine on this computer
	CodeBadCacheSize      = "bad_cache_size"      // Min and Max are the bounds, in GB
	CodeEngineTooOld      = "engine_too_old"      // the family engine cannot do this yet (search)
	CodeNoPhotos          = "no_photos"           // a folder with no photos in it; Name is the folder
	CodeNotPicture        = "not_picture"         // a clipboard without a picture Spark keeps; Name is its type
	CodePasteUnreadable   = "paste_unreadable"    // a pasted picture that could not be read
	CodeNotWaiting        = "not_waiting"         // an outbox entry sent or removed meanwhile
	CodeBadWordsLang      = "bad_words_lang"      // not a language of the words in photos; Name is what was given

	// Why Spark could not start (Status.Problem), Name the folder or file
	// and Detail the technical reason.
	CodeNoDataFolder   = "no_data_folder"  // the data folder could not be made
	CodeNoLog          = "no_log"          // the log could not be written
	CodeBadSettings    = "bad_settings"    // the settings file could not be read
	CodeOutboxUnopened = "outbox_unopened" // the outbox could not be opened; it is kept as it is
	CodeEngineInUse    = "engine_in_use"   // another program holds the engine's folder (Detail names it)
	CodeEngineFailed   = "engine_failed"   // the engine on this computer did not start

	// Why a file was not added (a card of Add photos), Name the file's
	// name and Detail the technical reason.
	CodeEmptyFile     = "empty_file"      // 0 bytes: it may not have finished copying
	CodeNotPhoto      = "not_photo"       // not a JPEG, PNG, WebP or HEIC photo
	CodeDamagedPhoto  = "damaged_photo"   // damaged or cut short
	CodePhotoTooLarge = "photo_too_large" // more pixels than Spark shrinks safely
	CodeDiskFull      = "disk_full"       // the disk holding the outbox is full
	CodeNoFile        = "no_file"         // the file is not there (a card or phone unplugged?)
	CodeNotAllowed    = "not_allowed"     // Spark may not read the file
	CodeNotAdded      = "not_added"       // any other reason
)

// Sentinel errors of the bound methods.
var (
	// ErrNotReady is returned by every bound method while the app has not
	// started, or could not start; Status says why.
	ErrNotReady = errors.New("app: Spark has not finished starting")
	// ErrCanceled is returned when the user closes a dialog without choosing.
	ErrCanceled = errors.New("app: nothing was chosen")
)

// UIError is what a failed bound call gives the UI: a code to act on and
// word, with the names and numbers its words need, and the technical
// detail behind "Details". The window makes every sentence itself
// (frontend/src/words.ts); none is made here.
type UIError struct {
	Code string `json:"code"`
	// Detail is the technical text behind the window's "Details" (the
	// engine's message, a Go error), "" when there is none: for whoever
	// looks after Spark, never read for its meaning.
	Detail string `json:"detail"`
	// Name is a name the words of the code give (a photo, an address
	// typed), "" when none.
	Name string `json:"name,omitempty"`
	// Min and Max are the bounds the words of the code give (a size
	// between them), 0 when none.
	Min float64 `json:"min,omitempty"`
	Max float64 `json:"max,omitempty"`
	// Parked is true for a write the engine refused: it is kept in the
	// Outbox, where Dad can try it again or discard it.
	Parked bool `json:"parked,omitempty"`
}

func (e *UIError) Error() string {
	msg := e.Code
	for _, s := range []string{e.Name, e.Detail} {
		if s != "" {
			msg += ": " + s
		}
	}
	return msg
}

// refused makes a *UIError for a value the user gave that cannot be used,
// by its code; name is what the code's words name ("" when none).
func refused(code, name string) *UIError {
	return &UIError{Code: code, Name: name}
}

// FormatError turns any error of a bound method into a *UIError. It is the
// Wails ErrorFormatter, so the UI's promise rejects with the UIError.
func FormatError(err error) any { return toUIError(err) }

func toUIError(err error) *UIError {
	var ue *UIError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return ue
	case errors.Is(err, ErrNotReady):
		return &UIError{Code: CodeNotReady}
	case errors.Is(err, ErrCanceled):
		return &UIError{Code: CodeCanceled}
	}
	if e, ok := api.AsError(err); ok {
		if e.Code == api.CodeForbidden {
			// A 403 that is not about the token itself: the token may not
			// do this (a device's token, another family member's moment).
			return &UIError{Code: api.CodeForbidden, Detail: e.Message}
		}
		if retry.Refused(e.Status) {
			return &UIError{Code: CodeUnauthorized, Detail: e.Message}
		}
		return &UIError{Code: e.Code, Detail: e.Message}
	}
	if retry.Network(err) {
		return &UIError{Code: CodeOffline, Detail: err.Error()}
	}
	return &UIError{Code: CodeFailed, Detail: err.Error()}
}
