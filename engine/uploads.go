package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/internal/blobstage"
)

// Resumable uploads of media [extension], after the IETF draft "Resumable
// Uploads for HTTP": an upload is created under its media id, appended in
// parts from the offset the engine holds, and kept as PutMedia keeps a
// whole upload once its last part is in and the whole file's SHA-256
// matches the one declared at creation. Parts are durable before the
// offset that counts them is answered (media/uploads.go). An upload with no
// progress for UploadMaxAge is removed (uploadsweep.go).
//
// An upload is its member's: the family member whose device created it
// (media.Upload.Member). Only that member's devices and admins may resume
// it, ask for its offset, append to it or cancel it; to anyone else it
// answers exactly as an upload that does not exist, so that no other
// device learns of it, and none can end a request appending to it (a
// preemption). Creating one is for those who may send the moment's files
// (checkMediaTarget): the moment's member and admins.

// Bounds of the resumable uploads.
const (
	// UploadMaxAge is how long an upload with no progress is kept.
	UploadMaxAge = api.UploadMaxAgeSeconds * time.Second
	// UploadCapPerMember is the most bytes one family member's uploads in
	// progress (from all their devices) may declare at once.
	UploadCapPerMember = 1 << 30
	// UploadsPerMember is the most uploads one member may have in
	// progress.
	UploadsPerMember = 64
)

// UploadState is where an upload stands: the bytes the engine holds, the
// whole length, whether it is complete; once complete, the media record
// and whether this request stored it.
type UploadState struct {
	ID       string
	Offset   int64
	Length   int64
	Complete bool
	Media    *api.Media
	Created  bool
}

// CreateUpload starts a resumable upload (the draft's upload creation).
type CreateUpload struct {
	ID, MomentID, Role, ContentType string
	// Length is the whole file's length (Upload-Length); required.
	Length int64
	// Digest is the whole file's SHA-256 (Repr-Digest); required.
	Digest []byte
	// Complete says the body is the whole file (Upload-Complete: ?1).
	Complete bool
	Body     io.Reader
	// Size is the body's length (Content-Length), negative when unknown.
	Size int64
	// Ready, when set, is told the upload exists before its body is read
	// (the HTTP face answers 104 with its place).
	Ready func(UploadState)
	// Stop, when set, ends the reading of Body (a later request for the
	// same upload preempts this one).
	Stop func()
}

// AppendUpload is one part of an upload (the draft's upload append).
type AppendUpload struct {
	ID       string
	Offset   int64 // Upload-Offset: where the client says the part starts
	Complete bool  // Upload-Complete: the part is the file's end
	// Length is Upload-Length when the request has one, else negative.
	Length int64
	Body   io.Reader
	Size   int64 // Content-Length, negative when unknown
	Stop   func()
}

// uploadLocks holds the uploads being appended to, one request at a time
// each.
type uploadLocks struct {
	mu    sync.Mutex
	busy  map[string]*inflight
	swept time.Time
}

type inflight struct {
	member string // of the request's actor
	stop   func()
	done   chan struct{}
}

// acquire takes upload id for one request of member's; false when another
// holds it.
func (u *uploadLocks) acquire(id, member string, stop func()) (func(), bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.busy == nil {
		u.busy = map[string]*inflight{}
	}
	if u.busy[id] != nil {
		return nil, false
	}
	f := &inflight{member: member, stop: stop, done: make(chan struct{})}
	u.busy[id] = f
	return func() {
		u.mu.Lock()
		delete(u.busy, id)
		u.mu.Unlock()
		close(f.done)
	}, true
}

// preemptGrace is how long a request for an upload waits for the one
// holding it to end by itself before it ends it: a cut connection's bytes
// already on their way to the engine are kept rather than thrown away.
const preemptGrace = 2 * time.Second

// preempt ends the request holding upload id, if any, and waits until it
// has kept what it received: the draft's answer to a client that resumes
// while the engine still reads its cut-off request. Only a request that
// may change what the holder's member made preempts it (a device of the
// same member, or an admin): another member's request never ends an
// honest append, and returns at once.
func (u *uploadLocks) preempt(ctx context.Context, id string, a Actor) error {
	u.mu.Lock()
	f := u.busy[id]
	u.mu.Unlock()
	if f == nil || !a.mayChange(f.member) {
		return nil
	}
	t := time.NewTimer(preemptGrace)
	defer t.Stop()
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	if f.stop != nil {
		f.stop()
	}
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// UploadLimits are the bounds an upload's client is told (Upload-Limit).
func (e *Engine) UploadLimits() (maxSize int64, maxAge time.Duration) {
	return e.cfg.MaxMediaSize, UploadMaxAge
}

// loadUpload reads upload id's state for the actor of ctx; one expired is
// removed, and one that is not the actor's is unknown, as one that does
// not exist.
func (e *Engine) loadUpload(ctx context.Context, id string) (*media.Upload, error) {
	u, err := e.media.LoadUpload(id)
	if errors.Is(err, media.ErrNoUpload) {
		return nil, unknownUpload(id)
	}
	if err != nil {
		return nil, err
	}
	if e.cfg.Now().Sub(u.Updated) > UploadMaxAge {
		if err := e.media.RemoveUpload(id); err != nil {
			return nil, err
		}
		return nil, unknownUpload(id)
	}
	if !mayUse(ctx, u) {
		return nil, unknownUpload(id)
	}
	return u, nil
}

// othersUpload reports whether upload id is in progress and another
// member's than the actor of ctx: a look, before the upload is held or a
// request holding it ended, that changes nothing.
func (e *Engine) othersUpload(ctx context.Context, id string) bool {
	u, err := e.media.LoadUpload(id)
	return err == nil && !mayUse(ctx, u)
}

// mayUse reports whether the actor of ctx may resume, append to, ask
// after or cancel upload u: u's member's devices and admins may.
func mayUse(ctx context.Context, u *media.Upload) bool {
	return actorOf(ctx).mayChange(u.Member)
}

func unknownUpload(id string) error {
	return api.Errorf(api.CodeUnknownUpload, "no upload of media %s is in progress: it was never started, it expired after 24 hours without progress, or it was cancelled; start it again with POST /v1/media/%s", id, id)
}

// storedState is the state of an upload whose media is stored.
func storedState(md *api.Media, created bool) UploadState {
	return UploadState{ID: md.ID, Offset: md.Size, Length: md.Size, Complete: true, Media: md, Created: created}
}

// CreateUpload starts a resumable upload of media p.ID, or answers as
// PutMedia does when the media is already stored (the same bytes: the
// record, created false; other bytes: media_conflict), without reading the
// body (which may then be empty: a client learns the record so). An upload of the same file already in progress is an
// upload_offset_mismatch with its offset (the client appends from there);
// one of another file is a media_conflict. Only the moment's member's
// devices and admins may create one (checkMediaTarget: forbidden); an
// upload under the id that is not the actor's gives way to theirs.
func (e *Engine) CreateUpload(ctx context.Context, p CreateUpload) (UploadState, error) {
	id, err := requireULID("media id", p.ID)
	if err != nil {
		return UploadState{}, err
	}
	if p.MomentID == "" {
		return UploadState{}, api.Errorf(api.CodeBadID, "the moment of the upload is missing: POST /v1/media/{id}?moment=<moment id>&role=copy|original")
	}
	momentID, err := requireULID("moment", p.MomentID)
	if err != nil {
		return UploadState{}, err
	}
	if err := api.CheckRole(p.Role); err != nil {
		return UploadState{}, err
	}
	if len(p.Digest) != 32 {
		return UploadState{}, api.Errorf(api.CodeBadDigest, "a resumable upload needs the whole file's SHA-256 in Repr-Digest: sha-256=:<base64>: (RFC 9530)")
	}
	sum := hex.EncodeToString(p.Digest)
	contentType := p.ContentType
	if contentType == "" {
		contentType = api.OctetStream
	}
	if err := api.CheckPhotoType(contentType); err != nil {
		return UploadState{}, err
	}
	if err := e.checkMediaTarget(ctx, id, momentID, p.Role); err != nil {
		return UploadState{}, err
	}
	if md, err := e.mirror.Media(ctx, id); err == nil {
		if md.SHA256 != sum {
			return UploadState{}, api.Errorf(api.CodeMediaConflict, "media %s is already stored with other bytes (SHA-256 %s, %d bytes); a new file needs a new media id", id, md.SHA256, md.Size)
		}
		return storedState(md, false), nil
	} else if !isNotFound(err) {
		return UploadState{}, err
	}
	if p.Length < 0 {
		return UploadState{}, api.Errorf(api.CodeBadUpload, "a resumable upload needs the whole file's length in Upload-Length")
	}
	if p.Length > e.cfg.MaxMediaSize {
		return UploadState{}, api.Errorf(api.CodeMediaTooLarge, "the file is %d bytes long, larger than this engine's limit of %d bytes; nothing was read", p.Length, e.cfg.MaxMediaSize)
	}
	if p.Size > p.Length || (p.Complete && p.Size >= 0 && p.Size != p.Length) {
		return UploadState{}, api.Errorf(api.CodeUploadLength, "the request carries %d bytes of a file declared %d bytes long; nothing was read", p.Size, p.Length)
	}
	if p.Size == 0 && !p.Complete && p.Length == 0 {
		return UploadState{}, api.Errorf(api.CodeEmptyPart, "an empty file is uploaded whole: Upload-Complete: ?1")
	}
	if err := e.writable(); err != nil {
		return UploadState{}, err
	}
	a := actorOf(ctx)
	release, ok := e.uploads.acquire(id, a.member(), p.Stop)
	if !ok {
		return UploadState{}, busyUpload(id)
	}
	defer release()
	e.sweepUploadsSoon(ctx)

	u, err := e.media.LoadUpload(id)
	if err == nil && !mayUse(ctx, u) {
		if u.MomentID != momentID {
			return UploadState{}, api.Errorf(api.CodeMediaConflict, "media id %s is being uploaded for another moment; a new file needs a new media id", id)
		}
		// Another member's upload onto a moment the actor may send the
		// files of (checkMediaTarget: the moment is the actor's member's),
		// made by an admin or before uploads had members: as if it did not
		// exist, it gives way.
		e.logger.Info("engine: an upload gives way to a new one by the moment's member", "media", id, "member", u.Member, "to", a.member())
		err = fmt.Errorf("%w: %s", media.ErrNoUpload, id)
	}
	switch {
	case err == nil:
		if u.SHA256 != sum || u.Length != p.Length || u.MomentID != momentID || u.Role != p.Role {
			return UploadState{}, api.Errorf(api.CodeMediaConflict, "an upload of other bytes (SHA-256 %s, %d bytes) is in progress under media id %s; a new file needs a new media id, or cancel that upload first (DELETE %s%s)", u.SHA256, u.Length, id, api.UploadsPath, id)
		}
		if u.Offset != 0 {
			return stateOf(u), offsetMismatch(u, 0)
		}
	case errors.Is(err, media.ErrNoUpload):
		if u, err = e.newUpload(ctx, media.Upload{ID: id, MomentID: momentID, Role: p.Role, ContentType: contentType,
			Length: p.Length, SHA256: sum}); err != nil {
			return UploadState{}, err
		}
	default:
		return UploadState{}, err
	}
	if p.Ready != nil {
		p.Ready(stateOf(u))
	}
	return e.appendPart(ctx, u, p.Body, p.Complete)
}

// newUpload makes upload u (its ids, type, length and SHA-256 given) the
// actor's, in place of any upload under its id, unless that would take
// the actor's member's uploads in progress past UploadCapPerMember bytes
// or UploadsPerMember uploads. The check and the creation hold the
// member's key, so that creations sent at once are counted one after the
// other: without it, 60 at once were 18 accepted, 4.5 GiB declared
// against the 1 GiB cap.
func (e *Engine) newUpload(ctx context.Context, u media.Upload) (*media.Upload, error) {
	a := actorOf(ctx)
	unlock, err := e.keys.lock(ctx, lockKey{"uploads of:", a.member()})
	if err != nil {
		return nil, err
	}
	defer unlock()
	ups, err := e.media.Uploads()
	if err != nil {
		return nil, err
	}
	n, held := 0, int64(0)
	for _, up := range ups {
		if up.Member == a.member() && up.ID != u.ID {
			n++
			held += up.Length
		}
	}
	if n+1 > UploadsPerMember || held+u.Length > UploadCapPerMember {
		return nil, api.Errorf(api.CodeUploadCap, "your devices have %d uploads of %d bytes in progress; the engine takes at most %d uploads of %d bytes from one family member at a time: finish or cancel one first", n, held, UploadsPerMember, int64(UploadCapPerMember))
	}
	now := e.cfg.Now()
	u.Client, u.Member, u.Created, u.Updated = a.Name, a.member(), now, now
	if err := e.media.CreateUpload(&u); err != nil {
		return nil, e.writeFailed(nil, fmt.Errorf("engine: create upload %s: %w", u.ID, err))
	}
	return &u, nil
}

func stateOf(u *media.Upload) UploadState {
	return UploadState{ID: u.ID, Offset: u.Offset, Length: u.Length}
}

func busyUpload(id string) error {
	return api.Errorf(api.CodeUploadBusy, "another request is appending to the upload of media %s; ask for its offset (HEAD %s%s), which ends that request, then append", id, api.UploadsPath, id)
}

func offsetMismatch(u *media.Upload, offset int64) error {
	return api.Errorf(api.CodeUploadOffsetMismatch, "the engine holds %d bytes of media %s, not %d; append from Upload-Offset %d", u.Offset, u.ID, offset, u.Offset)
}

// UploadOffset is the draft's offset retrieval: where upload id stands. A
// request still appending to it is ended first, and what it received kept,
// so that the offset answered is the one the next append must start at.
// The media id of a stored file answers as a complete upload. An upload
// that is not the actor's is unknown_upload, and its request is not ended.
func (e *Engine) UploadOffset(ctx context.Context, id string) (UploadState, error) {
	id, err := requireULID("media id", id)
	if err != nil {
		return UploadState{}, err
	}
	if !e.othersUpload(ctx, id) {
		if err := e.uploads.preempt(ctx, id, actorOf(ctx)); err != nil {
			return UploadState{}, err
		}
	}
	u, err := e.loadUpload(ctx, id)
	if err == nil {
		return stateOf(u), nil
	}
	if md, merr := e.mirror.Media(ctx, id); merr == nil {
		return storedState(md, false), nil
	} else if !isNotFound(merr) {
		return UploadState{}, merr
	}
	return UploadState{}, err
}

// AppendUpload is the draft's upload append: p's body is appended at
// p.Offset, which must be the engine's offset, and when p.Complete the
// whole file is checked against its declared SHA-256 and kept as media.
// A refused part changes nothing stored. Bytes received before the body
// was cut off are kept, as the draft asks. An upload that is not the
// actor's is unknown_upload.
func (e *Engine) AppendUpload(ctx context.Context, p AppendUpload) (UploadState, error) {
	id, err := requireULID("media id", p.ID)
	if err != nil {
		return UploadState{}, err
	}
	if p.Offset < 0 {
		return UploadState{}, api.Errorf(api.CodeBadUpload, "an append needs Upload-Offset: the bytes the engine holds (HEAD %s%s)", api.UploadsPath, id)
	}
	var u *media.Upload
	if e.othersUpload(ctx, id) {
		// Answered as none, without holding the upload: another member's
		// append must not make its own member's busy.
		err = unknownUpload(id)
	} else {
		a := actorOf(ctx)
		release, ok := e.uploads.acquire(id, a.member(), p.Stop)
		if !ok {
			return UploadState{}, busyUpload(id)
		}
		defer release()
		u, err = e.loadUpload(ctx, id)
	}
	if err != nil {
		if api.ErrorCode(err) == api.CodeUnknownUpload {
			if md, merr := e.mirror.Media(ctx, id); merr == nil {
				if p.Size == 0 && p.Complete {
					return storedState(md, false), nil
				}
				return storedState(md, false), api.Errorf(api.CodeUploadLength, "the upload of media %s is complete (%d bytes); nothing more can be appended", id, md.Size)
			}
		}
		return UploadState{}, err
	}
	switch {
	case p.Length >= 0 && p.Length != u.Length:
		return stateOf(u), api.Errorf(api.CodeUploadLength, "Upload-Length %d disagrees with the %d bytes declared when the upload of media %s was created", p.Length, u.Length, id)
	case p.Offset != u.Offset:
		return stateOf(u), offsetMismatch(u, p.Offset)
	case p.Size >= 0 && u.Offset+p.Size > u.Length:
		return stateOf(u), api.Errorf(api.CodeUploadLength, "a part of %d bytes at offset %d goes past the %d bytes declared for media %s; nothing was kept", p.Size, p.Offset, u.Length, id)
	case p.Complete && p.Size >= 0 && u.Offset+p.Size != u.Length:
		return stateOf(u), api.Errorf(api.CodeUploadLength, "the last part of media %s must end at its declared %d bytes; this one ends at %d; nothing was kept", id, u.Length, u.Offset+p.Size)
	case p.Size == 0 && !p.Complete:
		return stateOf(u), api.Errorf(api.CodeEmptyPart, "an append with no bytes changes nothing; send the bytes from offset %d, or Upload-Complete: ?1 when all %d are in", u.Offset, u.Length)
	}
	if err := e.writable(); err != nil {
		return stateOf(u), err
	}
	return e.appendPart(ctx, u, p.Body, p.Complete)
}

// appendPart appends body to u, the caller holding it, and completes the
// upload when complete and every byte is in.
func (e *Engine) appendPart(ctx context.Context, u *media.Upload, body io.Reader, complete bool) (UploadState, error) {
	if body == nil {
		body = eofReader{}
	}
	rt := &readTracker{r: body}
	_, err := e.media.AppendUpload(ctx, u, rt, u.Length-u.Offset, e.cfg.Now())
	if errors.Is(err, blobstage.ErrTooLarge) {
		return stateOf(u), api.Errorf(api.CodeUploadLength, "the part goes past the %d bytes declared for media %s; nothing of it was kept", u.Length, u.ID)
	}
	if err != nil {
		var re *blobstage.ReadError
		if errors.As(err, &re) {
			// The client's body stopped (cut off, too slow, or ended by a
			// later request for the upload): what came is kept; it resumes.
			return stateOf(u), api.Errorf(api.CodeRequestTimeout, "the part's body stopped (%v); the engine holds %d bytes of media %s: append the rest from Upload-Offset %d", re.Err, u.Offset, u.ID, u.Offset)
		}
		return stateOf(u), e.mediaFailed(ctx, rt, fmt.Errorf("engine: upload %s: %w", u.ID, err))
	}
	if !complete {
		return stateOf(u), nil
	}
	if u.Offset != u.Length {
		return stateOf(u), api.Errorf(api.CodeUploadLength, "the upload of media %s was marked complete with %d of its %d bytes; append the rest from offset %d", u.ID, u.Offset, u.Length, u.Offset)
	}
	return e.completeUpload(ctx, u)
}

// completeUpload checks the whole file's SHA-256 and keeps it as media.
func (e *Engine) completeUpload(ctx context.Context, u *media.Upload) (UploadState, error) {
	got, err := media.UploadSum(u)
	if err != nil {
		return stateOf(u), err
	}
	if got != u.SHA256 {
		// The bytes are not the declared file: they are dropped, and the
		// upload starts again from nothing.
		if err := e.media.RemoveUpload(u.ID); err != nil {
			e.logger.Warn("engine: remove a damaged upload", "media", u.ID, "err", err)
		}
		return UploadState{ID: u.ID, Length: u.Length}, api.Errorf(api.CodeDigestMismatch, "the %d bytes received for media %s have SHA-256 %s but Repr-Digest says %s; they were dropped, send the file again", u.Length, u.ID, got, u.SHA256)
	}
	md, created, err := e.keepMedia(ctx, mediaPut{id: u.ID, momentID: u.MomentID, role: u.Role, contentType: u.ContentType, sha256: u.SHA256, size: u.Length},
		func() error { return e.media.CommitUpload(u) })
	if err != nil {
		if ae, ok := api.AsError(err); ok && ae.Code == api.CodeMediaConflict {
			if rerr := e.media.RemoveUpload(u.ID); rerr != nil {
				e.logger.Warn("engine: remove a refused upload", "media", u.ID, "err", rerr)
			}
		}
		return stateOf(u), err
	}
	if !created {
		// Stored meanwhile by a PUT of the same bytes.
		if err := e.media.RemoveUpload(u.ID); err != nil {
			e.logger.Warn("engine: remove a finished upload", "media", u.ID, "err", err)
		}
	}
	return storedState(md, created), nil
}

// CancelUpload is the draft's upload cancellation: the upload and its
// bytes are removed. None in progress, or one that is not the actor's, is
// unknown_upload.
func (e *Engine) CancelUpload(ctx context.Context, id string) error {
	id, err := requireULID("media id", id)
	if err != nil {
		return err
	}
	if e.othersUpload(ctx, id) {
		return unknownUpload(id)
	}
	a := actorOf(ctx)
	if err := e.uploads.preempt(ctx, id, a); err != nil {
		return err
	}
	release, ok := e.uploads.acquire(id, a.member(), nil)
	if !ok {
		return busyUpload(id)
	}
	defer release()
	if _, err := e.loadUpload(ctx, id); err != nil {
		return err
	}
	return e.media.RemoveUpload(id)
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// sweepUploadsFsck removes, for fsck, the uploads in dir with no progress
// for UploadMaxAge (the engine removes them too, when it next looks), and
// says so on w.
func sweepUploadsFsck(dir string, now time.Time, w io.Writer) {
	gone, err := media.SweepUploadsIn(filepath.Join(dir, MediaDir), now.Add(-UploadMaxAge), slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, u := range gone {
		fmt.Fprintf(w, "note removed the upload of media %s (%d of %d bytes), with no progress since %s\n", u.ID, u.Offset, u.Length, u.Updated.UTC().Format(time.RFC3339))
	}
	if err != nil {
		fmt.Fprintf(w, "warn could not remove the uploads with no progress for 24 hours (%v); the next fsck tries again\n", err)
	}
}
