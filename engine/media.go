package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
)

// PutMedia is an upload: the ids and role from the route, the body, and
// the SHA-256 the client declared in Content-Digest (nil when absent).
type PutMedia struct {
	ID, MomentID, Role, ContentType string
	Body                            io.Reader
	Digest                          []byte
	// Size is the length the client declared (Content-Length), negative
	// when it declared none. An upload declared past the engine's limit is
	// refused before its body is read; the body is bounded as it is read
	// whatever is declared.
	Size int64
}

// PutMedia stores an upload as media id of a moment. The bytes are staged
// (streamed to a temp file while hashed, fsync'ed) before anything is
// decided; then, holding the media id: same id and same bytes return the
// stored record (created false); same id and other bytes are a
// media_conflict and the stored bytes stay as they were; otherwise the blob
// is committed to its content address and only then is media.put logged.
func (e *Engine) PutMedia(ctx context.Context, p PutMedia) (*api.Media, bool, error) {
	id, err := requireULID("media id", p.ID)
	if err != nil {
		return nil, false, err
	}
	if p.MomentID == "" {
		return nil, false, api.Errorf(api.CodeBadID, "the moment of the upload is missing: PUT /v1/media/{id}?moment=<moment id>&role=copy|original")
	}
	momentID, err := requireULID("moment", p.MomentID)
	if err != nil {
		return nil, false, err
	}
	if err := api.CheckRole(p.Role); err != nil {
		return nil, false, err
	}
	if p.Digest != nil && len(p.Digest) != 32 {
		return nil, false, api.Errorf(api.CodeBadDigest, "the Content-Digest sha-256 has %d bytes; a SHA-256 has 32", len(p.Digest))
	}
	contentType := p.ContentType
	if contentType == "" {
		contentType = api.OctetStream
	}
	if err := api.CheckPhotoType(contentType); err != nil {
		return nil, false, err
	}
	if p.Size > e.cfg.MaxMediaSize {
		return nil, false, api.Errorf(api.CodeMediaTooLarge, "the file is %d bytes long, larger than this engine's limit of %d bytes; nothing was read", p.Size, e.cfg.MaxMediaSize)
	}
	// Fail fast, before reading the body, on what the body cannot change.
	if err := e.checkMediaTarget(ctx, id, momentID, p.Role); err != nil {
		return nil, false, err
	}

	if err := e.writable(); err != nil {
		return nil, false, err
	}
	body := &readTracker{r: p.Body}
	staged, err := e.media.Stage(ctx, body, e.cfg.MaxMediaSize)
	if errors.Is(err, media.ErrTooLarge) {
		return nil, false, api.Errorf(api.CodeMediaTooLarge, "the file is larger than this engine's limit of %d bytes", e.cfg.MaxMediaSize)
	}
	if err != nil {
		return nil, false, e.mediaFailed(ctx, body, fmt.Errorf("engine: stage media %s: %w", id, err))
	}
	committed := false
	defer func() {
		if !committed {
			if err := staged.Discard(); err != nil {
				e.logger.Warn("engine: discard a staged upload", "media", id, "err", err)
			}
		}
	}()
	if p.Digest != nil && hex.EncodeToString(p.Digest) != staged.SHA256 {
		return nil, false, api.Errorf(api.CodeDigestMismatch, "the bytes received have SHA-256 %s but Content-Digest says %s; the upload was damaged or the digest is wrong, send it again",
			staged.SHA256, hex.EncodeToString(p.Digest))
	}

	md, created, err := e.keepMedia(ctx, mediaPut{id: id, momentID: momentID, role: p.Role, contentType: contentType, sha256: staged.SHA256, size: staged.Size}, staged.Commit)
	committed = created
	return md, created, err
}

// mediaPut is a media file whose bytes are staged and checked, to be kept.
type mediaPut struct {
	id, momentID, role, contentType, sha256 string
	size                                    int64
}

// keepMedia decides, holding the media id, what becomes of staged bytes
// (PutMedia's whole upload, or a resumable upload's complete one): same id
// and same bytes return the stored record (created false); same id and
// other bytes are a media_conflict and the stored bytes stay as they were;
// otherwise commit moves the bytes to their content address and only then
// is media.put logged.
func (e *Engine) keepMedia(ctx context.Context, m mediaPut, commit func() error) (*api.Media, bool, error) {
	id, momentID := m.id, m.momentID
	unlock, err := e.keys.lock(ctx, mediaKey(id), momentKey(momentID), blobKey(m.sha256))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	old, err := e.mirror.Media(ctx, id)
	switch {
	case err == nil:
		if old.SHA256 != m.sha256 {
			return nil, false, api.Errorf(api.CodeMediaConflict, "media %s is already stored with other bytes (SHA-256 %s, %d bytes); a new file needs a new media id",
				id, old.SHA256, old.Size)
		}
		return old, false, nil
	case !isNotFound(err):
		return nil, false, err
	}
	if err := e.checkMediaTarget(ctx, id, momentID, m.role); err != nil {
		return nil, false, err
	}
	if err := commit(); err != nil {
		return nil, false, e.writeFailed(nil, fmt.Errorf("engine: store media %s: %w", id, err))
	}
	rec, err := record(api.OpMediaPut, "", mirror.MediaPut{
		ID: id, MomentID: momentID, Role: m.role, SHA256: m.sha256, Size: m.size, ContentType: m.contentType,
	})
	if err != nil {
		return nil, true, err
	}
	if err := e.appendOps(ctx, rec); err != nil {
		return nil, true, err
	}
	md, err := e.mirror.Media(ctx, id)
	return md, true, err
}

// checkMediaTarget checks that the moment exists, that the actor may send
// its files (its member's devices and admins may: the ids of a photo's
// files are in /v1/ops before the files are sent, and another member's
// device could otherwise put its own bytes under them first), and that
// media id may be its file of that role: the id is not reserved by or
// stored for another moment or role, and the moment names no other file
// for the role.
func (e *Engine) checkMediaTarget(ctx context.Context, id, momentID, role string) error {
	if err := e.awaitFold(ctx); err != nil {
		return err
	}
	refs, err := e.mirror.MomentRefs(ctx, momentID)
	if isNotFound(err) {
		return api.Errorf(api.CodeUnknownMoment, "no moment has the id %s; create the moment before uploading its files", momentID)
	}
	if err != nil {
		return err
	}
	if refs.Purged {
		return purged(momentID)
	}
	if !actorOf(ctx).mayChange(refs.Owner) {
		return api.Errorf(api.CodeForbidden, "moment %s was added by another family member; only their devices, or the engine's owner with an admin token, may send its photo", momentID)
	}
	if md, err := e.mirror.Media(ctx, id); err == nil {
		if md.MomentID != momentID || md.Role != role {
			return api.Errorf(api.CodeMediaConflict, "media %s is already stored as the %s of moment %s", id, md.Role, md.MomentID)
		}
		return nil
	} else if !isNotFound(err) {
		return err
	}
	owner, ownerRole, err := e.mirror.MediaOwner(ctx, id)
	switch {
	case err == nil:
		if owner != momentID || ownerRole != role {
			return api.Errorf(api.CodeMediaConflict, "media id %s is reserved for the %s of moment %s", id, ownerRole, owner)
		}
	case !isNotFound(err):
		return err
	}
	named := refs.CopyID
	if role == api.RoleOriginal {
		named = refs.OriginalID
	}
	if named != "" && named != id {
		return api.Errorf(api.CodeMediaConflict, "moment %s already has %s %s; upload that file under its id", momentID, role, named)
	}
	return nil
}

// OpenMedia returns media record id and its blob, open for reading; the
// caller closes the file.
func (e *Engine) OpenMedia(ctx context.Context, id string) (*api.Media, *os.File, error) {
	id, err := requireULID("media id", id)
	if err != nil {
		return nil, nil, err
	}
	md, err := e.mirror.Media(ctx, id)
	if isNotFound(err) {
		return nil, nil, notFound("media", id)
	}
	if err != nil {
		return nil, nil, err
	}
	f, err := e.media.Open(md.SHA256)
	if errors.Is(err, media.ErrNotFound) {
		return nil, nil, fmt.Errorf("engine: media %s (SHA-256 %s) is recorded but its blob is missing from %s; run `spark-engine fsck --data %s`",
			id, md.SHA256, e.dir, e.dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("engine: open media %s: %w", id, err)
	}
	return md, f, nil
}
