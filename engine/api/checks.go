package api

import (
	"mime"
	"time"
)

// These are the engine's checks of a moment's, a medium's and a turn's
// values, each rule with one message. The engine applies them to what a
// request names; a client that copies an engine's log (the replica, a
// push) applies them to each op it reads (mirror.CheckRecord), so that
// what the engine itself would refuse never reaches this computer either.

// CheckKind checks a moment kind.
func CheckKind(kind string) error {
	switch kind {
	case KindPhoto, KindNote, KindRecall:
		return nil
	case "":
		return Errorf(CodeBadKind, "kind is required: \"photo\", \"note\" or \"recall\"")
	}
	return Errorf(CodeBadKind, "kind %q is unknown; it must be \"photo\", \"note\" or \"recall\"", kind)
}

// CheckTakenAt checks a taken_at time: RFC 3339 allows years 0000 to 9999
// only.
func CheckTakenAt(t *time.Time) error {
	if t != nil && (t.Year() < 0 || t.Year() > 9999) {
		return Errorf(CodeBadTakenAt, "taken_at %s is out of RFC 3339's range (years 0000-9999)", t)
	}
	return nil
}

// CreatedAtSkew is how far past its own clock an engine takes a moment's
// created_at (another engine's clock may run ahead of it).
const CreatedAtSkew = 24 * time.Hour

// CheckCreatedAt checks the created_at [extension] of a moment created
// elsewhere first (a push, a move): none, or a time in RFC 3339's range
// no later than now and CreatedAtSkew.
func CheckCreatedAt(t *time.Time, now time.Time) error {
	if t == nil {
		return nil
	}
	if t.Year() < 0 || t.Year() > 9999 {
		return Errorf(CodeBadCreatedAt, "created_at %s is out of RFC 3339's range (years 0000-9999)", t)
	}
	if t.After(now.Add(CreatedAtSkew)) {
		return Errorf(CodeBadCreatedAt, "created_at %s is later than this engine's clock (%s) by more than %s: a moment is added before it is sent",
			t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), CreatedAtSkew)
	}
	return nil
}

// CheckTurnID refuses what is not a turn id (request-id shaped).
func CheckTurnID(id string) error {
	if err := CheckRequestID(id); err != nil {
		return Errorf(CodeBadID, "%q is not a turn id: a turn id has 1 to %d characters of A-Z a-z 0-9 . _ : -", id, MaxRequestIDLen)
	}
	return nil
}

// CheckRole checks a medium's role.
func CheckRole(role string) error {
	if role != RoleCopy && role != RoleOriginal {
		return Errorf(CodeBadRole, "role must be \"copy\" or \"original\"; got %q", role)
	}
	return nil
}

// MaxContentTypeLen bounds a medium's stored Content-Type.
const MaxContentTypeLen = 255

// CheckContentType checks a medium's Content-Type as stored: what a
// media.put of any engine's log must pass, however old.
func CheckContentType(ct string) error {
	if len(ct) > MaxContentTypeLen {
		return Errorf(CodeBadMediaRef, "the Content-Type is %d bytes long; at most %d are kept", len(ct), MaxContentTypeLen)
	}
	return nil
}

// OctetStream is what a medium sent with no Content-Type is recorded as.
const OctetStream = "application/octet-stream"

// photoTypes are the types a new copy or original may be sent as
// [extension]: the photo formats Spark's clients capture and send (the
// outbox's JPEG, PNG, WebP and HEIC; its small copies are JPEG), and
// OctetStream, what an upload without Content-Type has always been
// recorded as, which no one is served as anything but bytes. Nothing
// narrower keeps every client working: push and Move send each stored
// medium with its recorded type.
var photoTypes = map[string]bool{
	"image/jpeg": true,
	"image/png":  true,
	"image/webp": true,
	"image/heic": true,
	OctetStream:  true,
}

// CheckPhotoType checks the Content-Type of a copy or an original being
// sent (PUT or a resumable upload's creation): one of the photo types,
// whatever its case and parameters, or OctetStream. Media already stored
// keep theirs, whatever it is (CheckContentType).
func CheckPhotoType(ct string) error {
	if err := CheckContentType(ct); err != nil {
		return err
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && photoTypes[mt] {
		return nil
	}
	return Errorf(CodeBadContentType, "Content-Type %q is not a photo's; a copy or an original is sent as image/jpeg, image/png, image/webp or image/heic (or application/octet-stream); nothing was read", ct)
}
