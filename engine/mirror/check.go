package mirror

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// ErrBadOp matches (errors.Is) the error of CheckRecord: an op that the
// engine itself would never have written.
var ErrBadOp = errors.New("an op the engine would refuse")

// CheckRecord checks an op read from another engine's log (a replica's
// sync, a push) with the engine's own rules for what a request may name
// (package api's checks): its request id, and by its kind its ids (ULIDs
// in canonical form, turn, job, recall and phrase ids), its moment kind,
// caption, taken_at, media role, SHA-256, size and Content-Type, turn mode,
// status and error code. An op of a kind this Spark does not know is refused too, as
// the fold refuses it. Names read from a log never become paths; this
// check keeps what the engine would refuse out of this computer's copy
// altogether. The error wraps ErrBadOp and says which op and why.
func CheckRecord(r oplog.Record) error {
	if err := checkRecord(r); err != nil {
		// The message may quote what the op holds: a few hundred bytes
		// of it say enough.
		msg := err.Error()
		if len(msg) > maxMessage {
			msg = strings.ToValidUTF8(msg[:maxMessage], "") + "..."
		}
		return fmt.Errorf("%w: op %d (%.40q): %s", ErrBadOp, r.Seq, r.Op, msg)
	}
	return nil
}

// maxMessage bounds the part of CheckRecord's message that tells why.
const maxMessage = 300

func checkRecord(r oplog.Record) error {
	// The author names a token, as the engine's log holds it.
	if len(r.Author) > oplog.MaxAuthorLen || !utf8.ValidString(r.Author) {
		return fmt.Errorf("the author of the op has %d bytes or is not UTF-8; a token's name has at most %d bytes of UTF-8", len(r.Author), oplog.MaxAuthorLen)
	}
	if len(r.Member) > oplog.MaxMemberLen || !utf8.ValidString(r.Member) {
		return fmt.Errorf("the member of the op has %d bytes or is not UTF-8; a member's name has at most %d bytes of UTF-8", len(r.Member), oplog.MaxMemberLen)
	}
	if r.RequestID != "" {
		if err := api.CheckRequestID(r.RequestID); err != nil {
			return err
		}
	}
	switch r.Op {
	case api.OpMomentCreate:
		var d MomentCreate
		if err := decode(r, &d); err != nil {
			return err
		}
		return checkCreate(d, r.At)
	case api.OpMomentEdit:
		var d MomentEdit
		if err := decode(r, &d); err != nil {
			return err
		}
		if err := canonicalULID("moment id", d.ID); err != nil {
			return err
		}
		return api.CheckEdit(api.EditMomentRequest{Caption: d.Caption, TakenAt: d.TakenAt, BaseCaption: d.BaseCaption,
			WrittenBy: d.WrittenBy, Dismiss: d.Dismiss})
	case api.OpMomentDelete:
		var d MomentDelete
		if err := decode(r, &d); err != nil {
			return err
		}
		return canonicalULID("moment id", d.ID)
	case api.OpMomentWords:
		var d MomentWords
		if err := decode(r, &d); err != nil {
			return err
		}
		if err := canonicalULID("moment id", d.ID); err != nil {
			return err
		}
		return api.CheckWords(api.Words{Text: d.Text, Lang: d.Lang})
	case api.OpMomentRestore:
		var d MomentRestore
		if err := decode(r, &d); err != nil {
			return err
		}
		return canonicalULID("moment id", d.ID)
	case api.OpMomentPurge:
		var d MomentPurge
		if err := decode(r, &d); err != nil {
			return err
		}
		return canonicalULID("moment id", d.ID)
	case api.OpMediaPut:
		var d MediaPut
		if err := decode(r, &d); err != nil {
			return err
		}
		return checkMedia(d)
	case api.OpTurnStart:
		var d TurnStart
		if err := decode(r, &d); err != nil {
			return err
		}
		return checkTurnStart(d)
	case api.OpTurnFinish:
		var d TurnFinish
		if err := decode(r, &d); err != nil {
			return err
		}
		if err := api.CheckTurnID(d.ID); err != nil {
			return err
		}
		if d.Status != api.TurnFinished && d.Status != api.TurnFailed {
			return api.Errorf(api.CodeBadStatus, "a turn finishes %q or %q, not %q", api.TurnFinished, api.TurnFailed, d.Status)
		}
		return api.CheckTurnErrorCode(d.Status, d.ErrorCode)
	case api.OpPhraseKeep:
		var d PhraseKeep
		if err := decode(r, &d); err != nil {
			return err
		}
		id, err := api.PhraseID(d.Text)
		if err != nil {
			return err
		}
		if id != d.ID {
			return api.Errorf(api.CodeBadID, "the phrase id %q is not the one its text makes, %q", d.ID, id)
		}
		return optionalCanonicalULID("moment id", d.MomentID)
	case api.OpPhraseUnkeep:
		var d PhraseUnkeep
		if err := decode(r, &d); err != nil {
			return err
		}
		return api.CheckPhraseID(d.ID)
	}
	return fmt.Errorf("this Spark does not know the op %.40q; a newer Spark may", r.Op)
}

func decode(r oplog.Record, v any) error {
	if err := json.Unmarshal(r.Data, v); err != nil {
		return fmt.Errorf("its data does not read: %w", err)
	}
	return nil
}

func checkCreate(d MomentCreate, at time.Time) error {
	if err := canonicalULID("moment id", d.ID); err != nil {
		return err
	}
	if err := api.CheckKind(d.Kind); err != nil {
		return err
	}
	if err := api.CheckCaption(d.Caption); err != nil {
		return err
	}
	if err := api.CheckTakenAt(d.TakenAt); err != nil {
		return err
	}
	if err := api.CheckCreatedAt(d.CreatedAt, at); err != nil {
		return err
	}
	if err := optionalCanonicalULID("copy id", d.CopyID); err != nil {
		return err
	}
	if err := optionalCanonicalULID("original id", d.OriginalID); err != nil {
		return err
	}
	if rc := d.Recall; rc != nil {
		if err := api.CheckRequestID(rc.ID); err != nil {
			return err
		}
		if err := api.CheckTurnID(rc.TurnID); err != nil {
			return err
		}
		for _, p := range rc.Phrases {
			if err := api.CheckPhraseID(p.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkMedia(d MediaPut) error {
	if err := canonicalULID("media id", d.ID); err != nil {
		return err
	}
	if err := canonicalULID("moment id", d.MomentID); err != nil {
		return err
	}
	if err := api.CheckRole(d.Role); err != nil {
		return err
	}
	if !isSHA256(d.SHA256) {
		return api.Errorf(api.CodeBadDigest, "the media's SHA-256 %.80q is not 64 lower-case hex digits", d.SHA256)
	}
	if d.Size < 0 {
		return api.Errorf(api.CodeBadMediaRef, "the media's size is %d bytes", d.Size)
	}
	return api.CheckContentType(d.ContentType)
}

func checkTurnStart(d TurnStart) error {
	if err := api.CheckTurnID(d.ID); err != nil {
		return err
	}
	if err := canonicalULID("moment id", d.MomentID); err != nil {
		return err
	}
	switch d.Mode {
	case api.ModePractical, api.ModeCareful, api.ModeRecall:
	default:
		return api.Errorf(api.CodeBadMode, "mode must be %q, %q or %q; got %.40q", api.ModePractical, api.ModeCareful, api.ModeRecall, d.Mode)
	}
	if d.Job != "" {
		if err := api.CheckJobID(d.Job); err != nil {
			return err
		}
	}
	if d.Recall != "" {
		if err := api.CheckRequestID(d.Recall); err != nil {
			return err
		}
	}
	return nil
}

// canonicalULID checks that s is a ULID as the engine writes it: upper
// case.
func canonicalULID(field, s string) error {
	id, err := api.ParseULID(s)
	if err == nil && id != s {
		err = api.Errorf(api.CodeBadID, "%q is not in the canonical (upper-case) form the engine writes", s)
	}
	if err != nil {
		if ae, ok := api.AsError(err); ok {
			return api.Errorf(ae.Code, "%s: %s", field, ae.Message)
		}
		return err
	}
	return nil
}

func optionalCanonicalULID(field, s string) error {
	if s == "" {
		return nil
	}
	return canonicalULID(field, s)
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}
