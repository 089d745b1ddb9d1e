package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/vfs"
	"github.com/sparkfamily/spark/internal/blobstage"
)

// A resumable upload [extension] arrives in parts over several requests
// and restarts. Each lives in DIR/uploads/<media id>/: "part", the bytes so
// far, and "state.json", its Upload. A part is fsync'ed before the state
// that counts it is written (atomically: temp file, fsync, rename, fsync of
// the directory), so the state's Offset never counts a byte a crash could
// lose; bytes past it (a part cut short by a crash) are dropped by the next
// append. A large part is made durable and counted every UploadSyncEvery
// bytes as it arrives, so a crash in its middle loses less than that. The state keeps the running SHA-256 at Offset, so the whole file
// is hashed once, as it arrives.

// UploadSyncEvery is how many bytes of a part are received at most
// between two points where they are made durable and counted, so that a
// crash in the middle of a large part loses less than this.
const UploadSyncEvery = 2 << 20

// UploadsDir is the directory of the resumable uploads in the store.
const UploadsDir = "uploads"

// ErrNoUpload is returned for a media id with no upload in progress.
var ErrNoUpload = errors.New("media: no upload in progress")

// UploadFormat is the version of the upload state (state.json) this store
// writes, in its "version":
//
//	0 (no "version")  written before uploads had members: "client" is the
//	                  name of the token that created the upload, which was
//	                  then its member too. LoadUpload reads it as version 1
//	                  with "member" = "client".
//	1                 "member" is the family member whose upload it is.
//
// A state of a later version, written by a newer engine, is not read.
const UploadFormat = 1

// Upload is the durable state of one resumable upload.
type Upload struct {
	Version     int       `json:"version"` // UploadFormat when written
	ID          string    `json:"id"`
	MomentID    string    `json:"moment"`
	Role        string    `json:"role"`
	ContentType string    `json:"content_type"`
	Client      string    `json:"client"` // the name of the token that created it
	Member      string    `json:"member"` // the family member whose it is ("" the engine's own)
	Length      int64     `json:"length"` // the whole file's, declared at creation
	SHA256      string    `json:"sha256"` // the whole file's, declared at creation
	Offset      int64     `json:"offset"` // bytes held, all fsync'ed
	Digest      []byte    `json:"digest"` // the running SHA-256 at Offset (blobstage.Digest.State)
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"` // the last progress
}

func (s *Store) uploadDir(id string) string { return filepath.Join(s.dir, UploadsDir, id) }

// CreateUpload makes the upload u, with no bytes yet.
func (s *Store) CreateUpload(u *Upload) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if !validID(u.ID) {
		return fmt.Errorf("media: create upload: %q is not a media id", u.ID)
	}
	dir := s.uploadDir(u.ID)
	if err := vfs.MkdirAll(s.fs, dir, 0o700); err != nil {
		return fmt.Errorf("media: create upload %s: %w", u.ID, err)
	}
	f, err := s.fs.OpenFile(filepath.Join(dir, "part"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("media: create upload %s: %w", u.ID, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return fmt.Errorf("media: create upload %s: %w", u.ID, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("media: create upload %s: %w", u.ID, err)
	}
	u.Offset = 0
	d, err := blobstage.NewDigest().State()
	if err != nil {
		return err
	}
	u.Digest = d
	return s.saveUpload(u)
}

// saveUpload writes u's state atomically and durably, in UploadFormat.
func (s *Store) saveUpload(u *Upload) error {
	u.Version = UploadFormat
	b, err := json.Marshal(u)
	if err != nil {
		return fmt.Errorf("media: save upload %s: %w", u.ID, err)
	}
	dir := s.uploadDir(u.ID)
	f, err := s.fs.CreateTemp(dir, "state-*")
	if err != nil {
		return fmt.Errorf("media: save upload %s: %w", u.ID, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		s.fs.Remove(f.Name())
		return fmt.Errorf("media: save upload %s: %w", u.ID, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		s.fs.Remove(f.Name())
		return fmt.Errorf("media: save upload %s: %w", u.ID, err)
	}
	if err := f.Close(); err != nil {
		s.fs.Remove(f.Name())
		return fmt.Errorf("media: save upload %s: %w", u.ID, err)
	}
	if err := blobstage.Place(s.fs, f.Name(), filepath.Join(dir, "state.json")); err != nil {
		s.fs.Remove(f.Name())
		return fmt.Errorf("media: save upload %s: %w", u.ID, err)
	}
	return nil
}

// LoadUpload reads the state of the upload of media id, or ErrNoUpload.
func (s *Store) LoadUpload(id string) (*Upload, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q is not a media id", ErrNoUpload, id)
	}
	f, err := s.fs.OpenFile(filepath.Join(s.uploadDir(id), "state.json"), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoUpload, id)
	}
	if err != nil {
		return nil, fmt.Errorf("media: load upload %s: %w", id, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("media: load upload %s: %w", id, err)
	}
	var u Upload
	if err := json.Unmarshal(b, &u); err != nil {
		return nil, fmt.Errorf("media: load upload %s: its state is damaged: %w", id, err)
	}
	switch u.Version {
	case 0:
		u.Version, u.Member = UploadFormat, u.Client
	case UploadFormat:
	default:
		return nil, fmt.Errorf("media: load upload %s: its state is of version %d, written by a newer engine; this one reads up to version %d", id, u.Version, UploadFormat)
	}
	if u.ID != id || u.Offset < 0 || u.Offset > u.Length {
		return nil, fmt.Errorf("media: load upload %s: its state is damaged (id %q, offset %d of %d)", id, u.ID, u.Offset, u.Length)
	}
	return &u, nil
}

// Uploads lists the uploads in progress. An upload whose state cannot be
// read (a crash while it was created) is listed with only its ID and the
// time of its directory as Updated.
func (s *Store) Uploads() ([]Upload, error) {
	des, err := os.ReadDir(filepath.Join(s.dir, UploadsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("media: list uploads: %w", err)
	}
	var out []Upload
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		u, err := s.LoadUpload(de.Name())
		if err != nil {
			fi, ierr := de.Info()
			if ierr != nil {
				continue
			}
			out = append(out, Upload{ID: de.Name(), Updated: fi.ModTime()})
			continue
		}
		out = append(out, *u)
	}
	return out, nil
}

// AppendUpload appends r's bytes to upload u, at most limit of them
// (limit < 0: no limit), and makes them durable: every UploadSyncEvery
// bytes, and at the end, the part is fsync'ed, then the state that counts
// them. Whatever r gave before it failed is kept, so a client cut off (or
// an engine killed) resumes from there. More than limit bytes is
// blobstage.ErrTooLarge, and then nothing of this append is kept. u is
// updated to the new state. The caller holds the upload.
func (s *Store) AppendUpload(ctx context.Context, u *Upload, r io.Reader, limit int64, now time.Time) (int64, error) {
	if s.readOnly {
		return 0, ErrReadOnly
	}
	d, err := blobstage.ResumeDigest(u.Digest)
	if err != nil {
		return 0, fmt.Errorf("media: upload %s: %w", u.ID, err)
	}
	if d.Size() != u.Offset {
		return 0, fmt.Errorf("media: upload %s: its state is damaged (digest of %d bytes at offset %d)", u.ID, d.Size(), u.Offset)
	}
	f, err := s.fs.OpenFile(filepath.Join(s.uploadDir(u.ID), "part"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, fmt.Errorf("media: upload %s: %w", u.ID, err)
	}
	defer f.Close()
	// Bytes past the durable offset were never counted: a crash cut their
	// part short. The new part goes where the offset says.
	if err := f.Truncate(u.Offset); err != nil {
		return 0, fmt.Errorf("media: upload %s: %w", u.ID, err)
	}
	start := *u
	var total int64
	for {
		// One stretch of at most UploadSyncEvery bytes; a stretch that
		// is not cut short may be followed by more.
		step := int64(UploadSyncEvery)
		if limit >= 0 {
			// One byte past the limit is read, to see it is exceeded.
			step = min(step, limit-total+1)
		}
		lr := &io.LimitedReader{R: r, N: step}
		n, cerr := blobstage.Copy(ctx, f, d, lr, -1)
		total += n
		if cerr == nil && limit >= 0 && total > limit {
			cerr = fmt.Errorf("%w: more than %d bytes", blobstage.ErrTooLarge, limit)
		}
		if errors.Is(cerr, blobstage.ErrTooLarge) {
			// Nothing of this append is kept, not even its stretches
			// already counted.
			if err := f.Truncate(start.Offset); err != nil {
				return 0, fmt.Errorf("media: upload %s: %w", u.ID, err)
			}
			if u.Offset != start.Offset {
				if err := s.saveUpload(&start); err != nil {
					return 0, err
				}
				*u = start
			}
			return 0, cerr
		}
		if n > 0 {
			if err := s.syncUpload(f, u, d, now); err != nil {
				return total, err
			}
		}
		if cerr != nil {
			var re *blobstage.ReadError
			if errors.As(cerr, &re) {
				re.N = total
			}
			return total, cerr
		}
		if lr.N > 0 {
			return total, nil // r ended before the stretch did
		}
	}
}

// syncUpload makes the bytes of u's part durable, then the state that
// counts them (d is the digest over them all), and updates u.
func (s *Store) syncUpload(f vfs.File, u *Upload, d *blobstage.Digest, now time.Time) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("media: upload %s: fsync: %w", u.ID, err)
	}
	state, err := d.State()
	if err != nil {
		return err
	}
	next := *u
	next.Offset, next.Digest, next.Updated = d.Size(), state, now
	if err := s.saveUpload(&next); err != nil {
		return err
	}
	*u = next
	return nil
}

// UploadSum is the SHA-256 (hex) of the bytes upload u holds.
func UploadSum(u *Upload) (string, error) {
	d, err := blobstage.ResumeDigest(u.Digest)
	if err != nil {
		return "", fmt.Errorf("media: upload %s: %w", u.ID, err)
	}
	return d.Hex(), nil
}

// CommitUpload moves the whole bytes of upload u, whose SHA-256 the caller
// checked, to their content address, and removes the upload. A blob with
// the same SHA-256 already stored is kept untouched.
func (s *Store) CommitUpload(u *Upload) error {
	if s.readOnly {
		return ErrReadOnly
	}
	final := s.path(u.SHA256)
	if _, err := s.fs.Stat(final); err != nil {
		if err := s.mkdirs(filepath.Dir(final)); err != nil {
			return fmt.Errorf("media: commit upload %s: %w", u.ID, err)
		}
		if err := blobstage.Place(s.fs, filepath.Join(s.uploadDir(u.ID), "part"), final); err != nil {
			return fmt.Errorf("media: commit upload %s: %w", u.ID, err)
		}
	}
	return s.RemoveUpload(u.ID)
}

// RemoveUpload removes the upload of media id and its bytes; none is not
// an error.
func (s *Store) RemoveUpload(id string) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if !validID(id) {
		return fmt.Errorf("media: remove upload: %q is not a media id", id)
	}
	if err := s.fs.RemoveAll(s.uploadDir(id)); err != nil {
		return fmt.Errorf("media: remove upload %s: %w", id, err)
	}
	if err := s.fs.SyncDir(filepath.Join(s.dir, UploadsDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("media: remove upload %s: %w", id, err)
	}
	return nil
}

// SweepUploads removes the uploads with no progress since before, and the
// directories of uploads a crash left without a state, and returns their
// ids.
func (s *Store) SweepUploads(before time.Time) ([]string, error) {
	ups, err := s.Uploads()
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, u := range ups {
		if !u.Updated.Before(before) {
			continue
		}
		if err := s.fs.RemoveAll(s.uploadDir(u.ID)); err != nil {
			return gone, fmt.Errorf("media: sweep upload %s: %w", u.ID, err)
		}
		gone = append(gone, u.ID)
		s.logger.Info("media: removed an upload with no progress", "media", u.ID, "since", u.Updated, "bytes", u.Offset)
	}
	if len(gone) > 0 {
		if err := s.fs.SyncDir(filepath.Join(s.dir, UploadsDir)); err != nil {
			return gone, fmt.Errorf("media: sweep uploads: %w", err)
		}
	}
	return gone, nil
}

// validID reports whether id is a canonical media id (a ULID in upper
// case), the only names made under DIR/uploads.
func validID(id string) bool {
	c, err := api.ParseULID(id)
	return err == nil && c == id
}

// SweepUploadsIn is SweepUploads on the store in dir without opening it
// (Open removes the temp files of uploads in flight; fsck runs beside a
// live engine).
func SweepUploadsIn(dir string, before time.Time, logger *slog.Logger) ([]Upload, error) {
	s := &Store{dir: dir, blobs: filepath.Join(dir, "sha256"), tmp: filepath.Join(dir, "tmp"), logger: logger, fs: vfs.OS}
	ups, err := s.Uploads()
	if err != nil {
		return nil, err
	}
	gone, err := s.SweepUploads(before)
	var out []Upload
	for _, u := range ups {
		if slices.Contains(gone, u.ID) {
			out = append(out, u)
		}
	}
	return out, err
}
