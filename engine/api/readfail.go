package api

// Why a reading failed [extension]: a failed turn's error_code. The
// engine classifies the failure where it happens and logs the code with
// the turn's turn.finish, so that a rebuild of the mirror keeps it; the
// turn's error keeps the engine's own words beside it, for whoever looks
// after the engine. A client words a reading's failure from this code, and
// shows one it does not know (a newer engine's) as ReadFailed.
// docs/API.md lists them.
const (
	// ReadPippaUnreachable: the seat could not be reached, or did not
	// answer in time, every time it was asked (network errors, timeouts,
	// 429 and 5xx answers).
	ReadPippaUnreachable = "pippa_unreachable"
	// ReadPippaRefused: the seat answered the request with a refusal that
	// asking again will not change (a bad key, an unknown model, a model
	// that takes no photos: a 4xx other than 408, 425 and 429).
	ReadPippaRefused = "pippa_refused"
	// ReadPippaAnswerUnreadable: the seat answered 200 with something that
	// is not a chat completion, or with no text.
	ReadPippaAnswerUnreadable = "pippa_answer_unreadable"
	// ReadPhotoTooLarge: the moment's small copy is larger than a seat is
	// shown (MaxReadImageBytes).
	ReadPhotoTooLarge = "photo_too_large_for_pippa"
	// ReadFailed: any other failure (the engine could not read the moment
	// or its small copy, say).
	ReadFailed = "reading_failed"
)

// ReadFailCodes are the codes of why a reading failed, in the order
// docs/API.md lists them.
var ReadFailCodes = []string{ReadPippaUnreachable, ReadPippaRefused, ReadPippaAnswerUnreadable, ReadPhotoTooLarge, ReadFailed}

// MaxReadImageBytes bounds the small copy a turn shows a seat; a small copy
// is a JPEG of at most 1600 pixels a side, far below it.
const MaxReadImageBytes = 32 << 20

// maxErrorCodeLen bounds a failed turn's error_code.
const maxErrorCodeLen = 64

// CheckTurnErrorCode checks a turn's error_code against its status: only a
// failed turn has one, and it is a code (1 to 64 of a-z 0-9 _). A code this
// engine does not list is taken as it is (a newer engine's, read as
// ReadFailed), so that a log moved from a newer engine still reads.
func CheckTurnErrorCode(status, code string) error {
	if code == "" {
		return nil
	}
	if status != TurnFailed {
		return Errorf(CodeBadErrorCode, "only a failed turn has an error_code; this one is %q with error_code %.80q", status, code)
	}
	if len(code) > maxErrorCodeLen {
		return Errorf(CodeBadErrorCode, "the error_code is %d bytes long; a code has at most %d", len(code), maxErrorCodeLen)
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return Errorf(CodeBadErrorCode, "the error_code %.80q is not a code: it has only a-z 0-9 _, e.g. %q", code, ReadPippaUnreachable)
		}
	}
	return nil
}
