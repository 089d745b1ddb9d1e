package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// This file and the other write paths hold the engine's checks of what a
// request names, each rule with one message: the HTTP handlers only parse
// the wire (JSON, path, query) and leave every check to the engine.

// checkLimit checks a page size: 1 to max.
func checkLimit(limit, max int) error {
	if limit < 1 || limit > max {
		return api.Errorf(api.CodeBadLimit, "limit %d is out of range; use a whole number from 1 to %d", limit, max)
	}
	return nil
}

// requireULID parses a ULID named field (a body field, a path's id, a
// query parameter) and returns its canonical form, naming field in the
// error.
func requireULID(field, s string) (string, error) {
	id, err := api.ParseULID(s)
	if err != nil {
		if ae, ok := api.AsError(err); ok {
			return "", api.Errorf(ae.Code, "%s: %s", field, ae.Message)
		}
		return "", err
	}
	return id, nil
}

// optionalULID is requireULID for a field that may be left out ("" stays
// "").
func optionalULID(field, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	return requireULID(field, s)
}

// CreateMoment creates a moment, or returns the one an earlier create with
// the same client request id or the same moment id made (created false,
// nothing written). A request id used before for another kind of write is
// refused with request_id_reused.
func (e *Engine) CreateMoment(ctx context.Context, req api.CreateMomentRequest) (*api.Moment, bool, error) {
	id, err := optionalULID("id", req.ID)
	if err != nil {
		return nil, false, err
	}
	if req.ClientRequestID != "" {
		if err := api.CheckRequestID(req.ClientRequestID); err != nil {
			return nil, false, err
		}
	}
	if err := api.CheckKind(req.Kind); err != nil {
		return nil, false, err
	}
	if err := api.CheckTakenAt(req.TakenAt); err != nil {
		return nil, false, err
	}
	if err := api.CheckCaption(req.Caption); err != nil {
		return nil, false, err
	}
	if err := api.CheckCreatedAt(req.CreatedAt, e.cfg.Now()); err != nil {
		return nil, false, err
	}
	copyID, err := optionalULID("copy_id", req.CopyID)
	if err != nil {
		return nil, false, err
	}
	originalID, err := optionalULID("original_id", req.OriginalID)
	if err != nil {
		return nil, false, err
	}
	if copyID != "" && copyID == originalID {
		return nil, false, api.Errorf(api.CodeBadMediaRef, "copy_id and original_id are both %s; the copy and the original are two files with two ids", copyID)
	}

	unlock, err := e.keys.lock(ctx, reqKey(req.ClientRequestID), momentKey(id), mediaKey(copyID), mediaKey(originalID))
	if err != nil {
		return nil, false, err
	}
	defer unlock()

	if req.ClientRequestID != "" {
		r, err := e.mirror.Request(ctx, req.ClientRequestID)
		switch {
		case err == nil:
			if r.Kind != mirror.RequestMoment {
				return nil, false, reused(req.ClientRequestID, r.Kind)
			}
			mo, err := e.Moment(ctx, r.MomentID)
			return mo, false, err
		case !isNotFound(err):
			return nil, false, err
		}
	}
	if id != "" {
		mo, err := e.mirror.Moment(ctx, id)
		switch {
		case err == nil:
			return e.overlayMoment(mo), false, nil
		case !isNotFound(err):
			return nil, false, err
		}
	} else {
		id = e.newID()
	}
	for _, ref := range []struct{ field, media string }{{"copy_id", copyID}, {"original_id", originalID}} {
		if err := e.checkMediaFree(ctx, ref.field, ref.media); err != nil {
			return nil, false, err
		}
	}
	rec, err := record(api.OpMomentCreate, req.ClientRequestID, mirror.MomentCreate{
		ID: id, Kind: req.Kind, Caption: req.Caption, TakenAt: req.TakenAt, CopyID: copyID, OriginalID: originalID,
		CreatedAt: utcPtr(req.CreatedAt),
	})
	if err != nil {
		return nil, false, err
	}
	recs, err := e.appendCreate(ctx, id, rec)
	if err != nil {
		return nil, false, err
	}
	// A new moment is exactly what the fold made of the op: no media yet
	// (its ids were checked free above) and no turns. Building it here
	// saves reading it back.
	at, created := recs[0].At, recs[0].At
	if req.CreatedAt != nil {
		created = req.CreatedAt.UTC()
	}
	return &api.Moment{
		ID: id, Kind: req.Kind, Caption: req.Caption, TakenAt: req.TakenAt,
		CreatedAt: created, UpdatedAt: at, Turns: []api.Turn{}, Member: recs[0].MemberOf(),
	}, true, nil
}

// checkMediaFree refuses a media id that another moment already names.
func (e *Engine) checkMediaFree(ctx context.Context, field, mediaID string) error {
	if mediaID == "" {
		return nil
	}
	owner, role, err := e.mirror.MediaOwner(ctx, mediaID)
	switch {
	case err == nil:
		return api.Errorf(api.CodeBadMediaRef, "%s %s is already the %s of moment %s; mint a new id for this moment's file", field, mediaID, role, owner)
	case !isNotFound(err):
		return err
	}
	md, err := e.mirror.Media(ctx, mediaID)
	switch {
	case err == nil:
		return api.Errorf(api.CodeBadMediaRef, "%s %s is already stored for moment %s; mint a new id for this moment's file", field, mediaID, md.MomentID)
	case !isNotFound(err):
		return err
	}
	return nil
}

// reused is the error for a request id already used by another kind of
// write.
func reused(id, kind string) error {
	return api.Errorf(api.CodeRequestIDReused, "the client request id %q was already used for a %s; every write needs its own request id", id, kindWords[kind])
}

var kindWords = map[string]string{
	mirror.RequestMoment: "moment create",
	mirror.RequestEdit:   "moment edit",
	mirror.RequestTurn:   "turn start",
	mirror.RequestRecall: "quick recall",
	mirror.RequestJob:    "high-quality job",
	// The derived request ids of the contract's idempotency table.
	mirror.RequestJobTurn:    "turn of a high-quality job",
	mirror.RequestRecallTurn: "quick recall's turn",
}

// Lock table keys, one namespace per kind of id.
func reqKey(id string) lockKey    { return keyOf("req:", id) }
func momentKey(id string) lockKey { return keyOf("moment:", id) }
func mediaKey(id string) lockKey  { return keyOf("media:", id) }
func phraseKey(id string) lockKey { return keyOf("phrase:", id) }

// keyOf is the key of id in namespace space; no id is no key.
func keyOf(space, id string) lockKey {
	if id == "" {
		return lockKey{}
	}
	return lockKey{space, id}
}

// Moment returns moment id with its media and turns, deleted or not.
func (e *Engine) Moment(ctx context.Context, id string) (*api.Moment, error) {
	id, err := requireULID("moment id", id)
	if err != nil {
		return nil, err
	}
	if err := e.awaitFold(ctx); err != nil {
		return nil, err
	}
	mo, err := e.mirror.Moment(ctx, id)
	if isNotFound(err) {
		if refs, rerr := e.mirror.MomentRefs(ctx, id); rerr == nil && refs.Purged {
			return nil, purged(id)
		}
		return nil, notFound("moment", id)
	}
	if err != nil {
		return nil, err
	}
	return e.overlayMoment(mo), nil
}

// purged is the error for a moment removed for good (moment.purge).
func purged(id string) error {
	return api.Errorf(api.CodeMomentPurged, "moment %s was deleted long ago and has been removed for good, with its photos; it can no longer be changed or brought back", id)
}

// momentChunk is how many moments EachMoment reads from the mirror at a
// time: a page is read in small chunks, so that only a few moments are in
// memory at once.
const momentChunk = 16

// momentOverhead is what a moment's fields besides its texts add to its
// JSON, and turnOverhead a turn's.
const (
	momentOverhead = 512
	turnOverhead   = 256
)

// EachMoment gives fn one page of live moments, newest first, with ids
// below before (when given): up to limit moments (0 is
// api.DefaultPageLimit), fewer when fn returns ErrPageFull. It returns the
// before of the following page, nil when no moment follows. Any other
// error of fn stops the page and is returned.
func (e *Engine) EachMoment(ctx context.Context, limit int, before string, fn func(*api.Moment) error) (*string, error) {
	return e.eachMoment(ctx, e.mirror.Moments, limit, before, fn)
}

// EachDeletedMoment is EachMoment of Recently deleted [extension]: the
// moments deleted and not purged, within the time the engine keeps them
// (Config.KeepDeleted, 30 days by default; all of them when it keeps them
// for ever), which POST /v1/moments/{id}/restore brings back.
func (e *Engine) EachDeletedMoment(ctx context.Context, limit int, before string, fn func(*api.Moment) error) (*string, error) {
	since := time.Unix(0, 0)
	if keep := e.keepDeleted(); keep > 0 {
		since = e.cfg.Now().Add(-keep)
	}
	return e.eachMoment(ctx, func(ctx context.Context, limit int, before string) ([]api.Moment, bool, error) {
		return e.mirror.DeletedMoments(ctx, since, limit, before)
	}, limit, before, fn)
}

// eachMoment pages through the moments list gives, for EachMoment and
// EachDeletedMoment.
func (e *Engine) eachMoment(ctx context.Context, list func(context.Context, int, string) ([]api.Moment, bool, error),
	limit int, before string, fn func(*api.Moment) error) (*string, error) {
	if limit == 0 {
		limit = api.DefaultPageLimit
	}
	if err := checkLimit(limit, api.MaxPageLimit); err != nil {
		return nil, err
	}
	before, err := optionalULID("before", before)
	if err != nil {
		return nil, err
	}
	if err := e.awaitFold(ctx); err != nil {
		return nil, err
	}
	given := 0
	for {
		moments, more, err := list(ctx, min(momentChunk, limit-given), before)
		if err != nil {
			return nil, err
		}
		for i := range moments {
			mo := e.overlayMoment(&moments[i])
			err := fn(mo)
			if errors.Is(err, ErrPageOver) && given > 0 {
				// before is the last moment given: the page ends there.
				return &before, nil
			}
			if err != nil && !errors.Is(err, ErrPageFull) {
				return nil, err
			}
			given++
			before = mo.ID
			if err != nil {
				if i < len(moments)-1 || more {
					return &before, nil
				}
				return nil, nil
			}
		}
		if !more {
			return nil, nil
		}
		if given == limit {
			return &before, nil
		}
	}
}

// momentSize is about how many bytes of JSON mo takes, for the page
// budgets of GET /v1/moments and GET /v1/search.
func momentSize(mo *api.Moment) int {
	n := momentOverhead + len(mo.Caption) + len(mo.Member)
	for _, t := range mo.Turns {
		n += turnOverhead + len(t.Text) + len(t.Error)
	}
	return n
}

// Moments returns a page of live moments, as EachMoment gives it, cut at
// about PageBytes.
func (e *Engine) Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	var moments []api.Moment
	size := 0
	next, err := e.EachMoment(ctx, limit, before, func(mo *api.Moment) error {
		n := momentSize(mo)
		if len(moments) > 0 && size+n > PageBytes {
			return ErrPageOver
		}
		moments = append(moments, *mo)
		if size += n; size >= PageBytes {
			return ErrPageFull
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if moments == nil {
		moments = []api.Moment{}
	}
	return moments, next, nil
}

// EditMoment changes the caption and taken_at given, and sets aside the
// alternatives it dismisses: the moment, and true when the edit brought it
// back from Recently deleted (an edit is never turned down for a delete:
// what Dad typed is kept). Values equal to the moment's write nothing, and
// updated_at stays as it was. A caption with a base that is no longer the
// moment's is kept with the other (mirror.MomentEdit).
func (e *Engine) EditMoment(ctx context.Context, id string, req api.EditMomentRequest) (*api.Moment, bool, error) {
	id, err := requireULID("moment id", id)
	if err != nil {
		return nil, false, err
	}
	if err := checkEdit(ctx, &req); err != nil {
		return nil, false, err
	}
	unlock, err := e.keys.lock(ctx, reqKey(req.ClientRequestID), momentKey(id))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	mo, err := e.Moment(ctx, id)
	if err != nil {
		return nil, false, err
	}
	if err := e.mayChangeMoment(ctx, id); err != nil {
		return nil, false, err
	}
	if req.ClientRequestID != "" {
		r, err := e.mirror.Request(ctx, req.ClientRequestID)
		switch {
		case err == nil && (r.Kind != mirror.RequestEdit || r.MomentID != id):
			return nil, false, reused(req.ClientRequestID, r.Kind)
		case err == nil:
			return mo, false, nil
		case !isNotFound(err):
			return nil, false, err
		}
	}
	deleted := mo.DeletedAt != nil
	edit := mirror.MomentEdit{ID: id}
	if req.Caption != nil && *req.Caption != mo.Caption {
		edit.Caption, edit.BaseCaption = req.Caption, req.BaseCaption
		if req.BaseCaption != nil {
			edit.WrittenAt, edit.WrittenBy = utcPtr(req.WrittenAt), req.WrittenBy
		}
	}
	if req.TakenAt != nil && (mo.TakenAt == nil || !sameTime(*req.TakenAt, *mo.TakenAt)) {
		edit.TakenAt = req.TakenAt
	}
	for _, d := range req.Dismiss {
		if slices.ContainsFunc(mo.Alternatives, func(a api.Alternative) bool { return a.ID == d }) && !slices.Contains(edit.Dismiss, d) {
			edit.Dismiss = append(edit.Dismiss, d)
		}
	}
	if edit.Caption == nil && edit.TakenAt == nil && len(edit.Dismiss) == 0 && !deleted {
		// Nothing changes, and nothing is written: not even its request
		// id, so that a moment pushed to another engine and back finds
		// it all there. (A repeat of such an edit after other edits is
		// an edit from an old base: the caption it replaces is kept.)
		return mo, false, nil
	}
	rec, err := record(api.OpMomentEdit, req.ClientRequestID, edit)
	if err != nil {
		return nil, false, err
	}
	if err := e.appendOps(ctx, rec); err != nil {
		return nil, false, err
	}
	mo, err = e.Moment(ctx, id)
	return mo, deleted, err
}

// checkEdit refuses an edit the engine would never log (api.CheckEdit),
// and drops a written_by that only an admin may send.
func checkEdit(ctx context.Context, req *api.EditMomentRequest) error {
	if err := api.CheckEdit(*req); err != nil {
		return err
	}
	if !actorOf(ctx).Admin {
		req.WrittenBy = ""
	}
	return nil
}

// mayChangeMoment refuses, with forbidden, a change to moment id (held
// under its key) by a token that may not change it: a device token that
// did not create it.
func (e *Engine) mayChangeMoment(ctx context.Context, id string) error {
	if err := e.awaitFold(ctx); err != nil {
		return err
	}
	refs, err := e.mirror.MomentRefs(ctx, id)
	if isNotFound(err) {
		return notFound("moment", id)
	}
	if err != nil {
		return err
	}
	if !actorOf(ctx).mayChange(refs.Owner) {
		return notYours("moment", id)
	}
	return nil
}

// sameTime reports whether a reader would see the same taken_at: the same
// instant written with the same offset.
func sameTime(a, b time.Time) bool {
	return a.Format(time.RFC3339Nano) == b.Format(time.RFC3339Nano)
}

// DeleteMoment deletes moment id: true when it was live, false (nothing
// written) when it was already deleted, 404 for an id never seen.
func (e *Engine) DeleteMoment(ctx context.Context, id string) (bool, error) {
	id, err := requireULID("moment id", id)
	if err != nil {
		return false, err
	}
	unlock, err := e.keys.lock(ctx, momentKey(id))
	if err != nil {
		return false, err
	}
	defer unlock()
	if err := e.awaitFold(ctx); err != nil {
		return false, err
	}
	refs, err := e.mirror.MomentRefs(ctx, id)
	if isNotFound(err) {
		return false, notFound("moment", id)
	}
	if err != nil {
		return false, err
	}
	if !actorOf(ctx).mayChange(refs.Owner) {
		return false, notYours("moment", id)
	}
	if refs.Deleted {
		return false, nil
	}
	rec, err := record(api.OpMomentDelete, "", mirror.MomentDelete{ID: id})
	if err != nil {
		return false, err
	}
	if err := e.appendOps(ctx, rec); err != nil {
		return false, err
	}
	return true, nil
}

// RestoreMoment [extension] brings a deleted moment back: the moment, and
// true when it was deleted; false (nothing written) when it was live; 404
// for an id never seen. Who may delete it may restore it.
func (e *Engine) RestoreMoment(ctx context.Context, id string) (*api.Moment, bool, error) {
	id, err := requireULID("moment id", id)
	if err != nil {
		return nil, false, err
	}
	unlock, err := e.keys.lock(ctx, momentKey(id))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	if err := e.awaitFold(ctx); err != nil {
		return nil, false, err
	}
	refs, err := e.mirror.MomentRefs(ctx, id)
	if isNotFound(err) {
		return nil, false, notFound("moment", id)
	}
	if err != nil {
		return nil, false, err
	}
	if !actorOf(ctx).mayChange(refs.Owner) {
		return nil, false, notYours("moment", id)
	}
	if refs.Purged {
		return nil, false, purged(id)
	}
	restored := false
	if refs.Deleted {
		rec, err := record(api.OpMomentRestore, "", mirror.MomentRestore{ID: id})
		if err != nil {
			return nil, false, err
		}
		if err := e.appendOps(ctx, rec); err != nil {
			return nil, false, err
		}
		restored = true
	}
	mo, err := e.Moment(ctx, id)
	return mo, restored, err
}

// PutWords [extension] keeps the words found in a moment's photo: the
// words the moment keeps, and true when this call wrote them. The first
// words sent for a moment are kept; a repeat, or words read by another
// computer, write nothing and answer those (a photo's words are read
// wherever it is first shown, and every reader lands on the same). Any
// member's token may send them, as it may start a reading: they are read
// from the photo, not written by anyone. A deleted moment takes them,
// like its uploads; an id never seen is 404 unknown_moment.
func (e *Engine) PutWords(ctx context.Context, momentID string, w api.Words) (*api.Words, bool, error) {
	id, err := requireULID("moment id", momentID)
	if err != nil {
		return nil, false, err
	}
	if err := api.CheckWords(w); err != nil {
		return nil, false, err
	}
	unlock, err := e.keys.lock(ctx, momentKey(id))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	mo, err := e.Moment(ctx, id)
	if api.ErrorCode(err) == api.CodeNotFound {
		return nil, false, api.Errorf(api.CodeUnknownMoment, "moment %s does not exist; its words cannot be kept", id)
	}
	if err != nil {
		return nil, false, err
	}
	if mo.Words != nil {
		return mo.Words, false, nil
	}
	rec, err := record(api.OpMomentWords, "", mirror.MomentWords{ID: id, Text: w.Text, Lang: w.Lang})
	if err != nil {
		return nil, false, err
	}
	if err := e.appendOps(ctx, rec); err != nil {
		return nil, false, err
	}
	return &w, true, nil
}

// utcPtr is t in UTC, nil for nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
