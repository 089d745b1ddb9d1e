package api

import (
	"errors"
	"fmt"
	"time"
)

// Error codes carried in {"error": {"code", "message"}}. The contract names
// bad_id, bad_json, media_conflict, digest_mismatch, unknown_moment and
// request_id_reused; the rest are this project's additions, listed in
// docs/API.md.
const (
	CodeBadID            = "bad_id"
	CodeBadJSON          = "bad_json"
	CodeBadKind          = "bad_kind"
	CodeBadTakenAt       = "bad_taken_at"
	CodeBadCreatedAt     = "bad_created_at"
	CodeBadDeleted       = "bad_deleted" // [extension] GET /v1/moments?deleted= neither true nor false
	CodeBadEdit          = "bad_edit"    // [extension] PATCH's written_by too long, or dismiss not alternatives' ids
	CodeBadWords         = "bad_words"   // [extension] a photo's words past MaxWordsBytes, not UTF-8, or a bad language
	CodeBadMode          = "bad_mode"
	CodeBadRole          = "bad_role"
	CodeBadLimit         = "bad_limit"
	CodeBadText          = "bad_text"
	CodeBadDigest        = "bad_digest"
	CodeBadMediaRef      = "bad_media_ref"
	CodeCaptionTooLong   = "caption_too_long"
	CodeDigestMismatch   = "digest_mismatch"
	CodeMediaConflict    = "media_conflict"
	CodeUnknownMoment    = "unknown_moment"
	CodeMomentDeleted    = "moment_deleted"
	CodeRequestIDReused  = "request_id_reused"
	CodeNotFound         = "not_found"
	CodeUnauthorized     = "unauthorized"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeBodyTooLarge     = "body_too_large"
	CodeRequestTimeout   = "request_timeout"
	CodeMediaTooLarge    = "media_too_large"
	CodeNoPhrases        = "no_phrases"
	CodeImportConflict   = "import_conflict" // [extension] POST /v1/import/turns
	CodeBadStatus        = "bad_status"      // [extension] POST /v1/import/turns
	CodeTurnTooLarge     = "turn_too_large"  // [extension] a turn's text, error or seat past its cap
	CodeTooManyTurns     = "too_many_turns"  // [extension] a member's turns on a moment at their cap (MaxTurnsPerMoment, MaxOthersTurnsPerMoment)
	CodeBadErrorCode     = "bad_error_code"  // [extension] an imported turn's error_code (CheckTurnErrorCode)
	CodeBadHost          = "bad_host"
	// CodeBadMember [extension]: an admin's Spark-Member header that is
	// not a member's name (MemberHeader).
	CodeBadMember = "bad_member"
	// CodeForbidden [extension]: the token's scope does not allow this
	// (a device token changing what another family member created).
	CodeForbidden   = "forbidden"
	CodeUnavailable = "unavailable"
	CodeInternal    = "internal"
	// CodeMomentPurged [extension]: the moment was deleted longer ago
	// than the engine keeps deleted moments and has been removed for good
	// (moment.purge); nothing can change it or bring it back.
	CodeMomentPurged = "moment_purged"
	// CodeSearchTooBroad [extension] is GET /v1/search given up at its time
	// budget: the words match too much to answer quickly.
	CodeSearchTooBroad = "search_too_broad"
	// CodeTooManyReadings [extension] is a new reading refused because its
	// family member started too many in a short time, or in a day;
	// Retry-After says when the next is allowed.
	CodeTooManyReadings = "too_many_readings"
	// CodeBadContentType [extension] is a copy or an original sent as a
	// type that is not a photo's (CheckPhotoType); nothing is read.
	CodeBadContentType = "bad_content_type"
	// CodeTooManyRequests [extension] is a request refused because its
	// client, behind a trusted reverse proxy, already has the most
	// requests at work at once that one client may have; Retry-After says
	// when to send it again.
	CodeTooManyRequests = "too_many_requests"
)

// Error is a contract error: a machine code and a message a person can act
// on. The engine returns it (made with Errorf, Status left zero); the HTTP
// server turns its code into a status through HTTPStatus, the one table of
// codes and statuses; the client rebuilds it from a response, with Status
// and RetryAfter filled from the answer.
type Error struct {
	Status     int           `json:"-"`
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s (%d %s)", e.Message, e.Status, e.Code)
	}
	return fmt.Sprintf("%s (%s)", e.Message, e.Code)
}

// Errorf makes an *Error with the given code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// statusOf is the one table from error codes to HTTP statuses.
var statusOf = map[string]int{
	CodeBadID:            400,
	CodeBadJSON:          400,
	CodeBadKind:          400,
	CodeBadTakenAt:       400,
	CodeBadCreatedAt:     400,
	CodeBadDeleted:       400,
	CodeBadEdit:          400,
	CodeBadWords:         400,
	CodeBadMode:          400,
	CodeBadRole:          400,
	CodeBadLimit:         400,
	CodeBadText:          400,
	CodeBadDigest:        400,
	CodeBadMediaRef:      400,
	CodeCaptionTooLong:   400,
	CodeDigestMismatch:   400,
	CodeUnauthorized:     401,
	CodeBadHost:          403,
	CodeBadMember:        400,
	CodeForbidden:        403,
	CodeNotFound:         404,
	CodeUnknownMoment:    404,
	CodeMethodNotAllowed: 405,
	CodeMediaConflict:    409,
	CodeRequestIDReused:  409,
	CodeMomentDeleted:    409,
	CodeMomentPurged:     410,
	CodeNoPhrases:        409,
	CodeImportConflict:   409,
	CodeBadStatus:        400,
	CodeTurnTooLarge:     400,
	CodeTooManyTurns:     409,
	CodeBadErrorCode:     400,
	CodeRequestTimeout:   408,
	CodeBodyTooLarge:     413,
	CodeMediaTooLarge:    413,
	CodeUnavailable:      503,
	CodeInternal:         500,
	CodeSearchTooBroad:   422,
	CodeTooManyReadings:  429,
	CodeBadContentType:   415,
	CodeTooManyRequests:  429,
}

// HTTPStatus returns the HTTP status for an error code; unknown codes are 500.
func HTTPStatus(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return 500
}

// ErrorBody is the JSON body of every error answer.
type ErrorBody struct {
	Error *Error `json:"error"`
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// ErrorCode returns the contract code of err, or "" when err is not an *Error.
func ErrorCode(err error) string {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	return ""
}
