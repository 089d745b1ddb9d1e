// Package media is the engine's content-addressed blob store: the bytes of
// every photo, each stored once under its SHA-256.
//
// A blob lives at DIR/sha256/<hex[0:2]>/<hex[2:4]>/<hex>. An upload is
// written to a temp file in DIR/tmp while it is hashed, fsync'ed, and only
// then renamed to its content address, after which the directory is
// fsync'ed: a blob that exists under its address is whole and durable. The
// engine logs media.put only after Commit returns. Temp files left by a crash
// are removed by Open.
//
// Every write goes through a vfs.FS (the operating system's in production,
// a simulated disk that can lose power in tests); reads of a stored blob go
// to the operating system's files, which the engine hands to its HTTP
// server.
package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/vfs"
	"github.com/sparkfamily/spark/internal/blobstage"
	"github.com/sparkfamily/spark/internal/ctxio"
)

// Errors returned by the Store.
var (
	// ErrTooLarge is returned by Stage when the stream has more bytes than
	// the limit.
	ErrTooLarge = errors.New("media: too large")
	// ErrNotFound is returned by Open and Verify for a blob the store does
	// not hold.
	ErrNotFound = errors.New("media: no such blob")
	// ErrBadHash is returned for a name that is not 64 lower-case hex
	// characters; it never reaches the file system.
	ErrBadHash = errors.New("media: not a SHA-256 hex digest")
	// ErrCorrupt is returned by Verify when a blob's bytes no longer hash to
	// its name.
	ErrCorrupt = errors.New("media: stored bytes do not match their SHA-256")
)

// bufSize is the copy buffer of Stage and Verify.
const bufSize = 256 << 10

// Store is a content-addressed blob store in a directory. Its methods are
// safe for concurrent use.
type Store struct {
	dir      string
	blobs    string // DIR/sha256
	tmp      string // DIR/tmp
	logger   *slog.Logger
	fs       vfs.FS
	readOnly bool
}

// ErrReadOnly is returned by Stage on a store opened read-only.
var ErrReadOnly = errors.New("media: the store is open read-only")

// Options configure OpenWith.
type Options struct {
	Logger *slog.Logger // nil: slog.Default()
	// FS is the file system the store writes through; nil is the
	// operating system's (vfs.OS).
	FS vfs.FS
	// ReadOnly opens the store for reading only, for fsck: nothing is
	// created or removed (an engine may be writing the store meanwhile),
	// and Stage refuses.
	ReadOnly bool
}

// Open opens the store in dir, creating it if needed, and removes the temp
// files a crash may have left.
func Open(dir string, logger *slog.Logger) (*Store, error) {
	return OpenWith(dir, Options{Logger: logger})
}

// OpenWith opens the store in dir as Open does, with options.
func OpenWith(dir string, opts Options) (*Store, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &Store{dir: dir, blobs: filepath.Join(dir, "sha256"), tmp: filepath.Join(dir, "tmp"), logger: logger, fs: vfs.Default(opts.FS), readOnly: opts.ReadOnly}
	if s.readOnly {
		return s, nil
	}
	for _, d := range []string{s.blobs, s.tmp, filepath.Join(dir, UploadsDir)} {
		// The parent of each new directory is synced, so that a blob
		// committed later cannot vanish with a directory a power cut lost.
		if err := vfs.MkdirAll(s.fs, d, 0o700); err != nil {
			return nil, fmt.Errorf("media: open store: %w", err)
		}
	}
	entries, err := s.fs.ReadDir(s.tmp)
	if err != nil {
		return nil, fmt.Errorf("media: open store: %w", err)
	}
	for _, e := range entries {
		p := filepath.Join(s.tmp, e.Name())
		if err := s.fs.RemoveAll(p); err != nil {
			return nil, fmt.Errorf("media: open store: remove leftover temp file: %w", err)
		}
		logger.Warn("media: removed a temp file left by an interrupted upload", "path", p)
	}
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Staged is an upload written to a temp file, hashed and fsync'ed, waiting
// to be committed under its content address or discarded.
type Staged struct {
	SHA256 string   // lower-case hex
	Sum    [32]byte // the same digest as bytes
	Size   int64

	s    *Store
	temp string // "" once committed or discarded
}

// Stage streams r to a temp file while hashing it, never holding more than
// a small buffer in memory, and fsyncs the file. A stream longer than limit
// bytes gives ErrTooLarge (limit <= 0 means no limit). On any error the temp
// file is removed. The caller must Commit or Discard the result.
func (s *Store) Stage(ctx context.Context, r io.Reader, limit int64) (st *Staged, err error) {
	if s.readOnly {
		return nil, ErrReadOnly
	}
	f, err := s.fs.CreateTemp(s.tmp, "stage-*")
	if err != nil {
		return nil, fmt.Errorf("media: stage: create temp file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			s.fs.Remove(f.Name())
		}
	}()
	if limit <= 0 {
		limit = -1
	}
	d, err := blobstage.Stage(ctx, f, r, limit)
	if errors.Is(err, blobstage.ErrTooLarge) {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	st = &Staged{Size: d.Size(), Sum: d.Sum(), s: s, temp: f.Name()}
	st.SHA256 = hex.EncodeToString(st.Sum[:])
	return st, nil
}

// Commit moves the staged bytes to their content address and fsyncs the
// directory. If a blob with the same SHA-256 is already stored, the temp
// file is dropped and the stored blob is kept untouched.
func (st *Staged) Commit() error {
	if st.temp == "" {
		return errors.New("media: commit: already committed or discarded")
	}
	fsys := st.s.fs
	final := st.s.path(st.SHA256)
	if _, err := fsys.Stat(final); err == nil {
		return st.Discard()
	}
	dir := filepath.Dir(final)
	if err := st.s.mkdirs(dir); err != nil {
		return fmt.Errorf("media: commit %s: %w", st.SHA256, err)
	}
	if err := blobstage.Place(fsys, st.temp, final); err != nil {
		// A concurrent Commit of the same bytes may have won (Windows
		// refuses to rename over a file in use); the blob is there.
		if _, serr := fsys.Stat(final); serr == nil {
			return st.Discard()
		}
		return fmt.Errorf("media: commit %s: %w", st.SHA256, err)
	}
	st.temp = ""
	return nil
}

// Discard removes the staged bytes. It does nothing after Commit, so it can
// be deferred.
func (st *Staged) Discard() error {
	if st.temp == "" {
		return nil
	}
	err := st.s.fs.Remove(st.temp)
	st.temp = ""
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("media: discard: %w", err)
	}
	return nil
}

// mkdirs creates dir and the missing directories above it inside the
// store, fsyncing the parent of each new one so that it survives a crash.
func (s *Store) mkdirs(dir string) error {
	if _, err := s.fs.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != s.blobs {
		if err := s.mkdirs(parent); err != nil {
			return err
		}
	}
	if err := s.fs.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return s.fs.SyncDir(parent)
}

// path returns where the blob with that digest lives.
func (s *Store) path(sum string) string {
	return filepath.Join(s.blobs, sum[0:2], sum[2:4], sum)
}

// Path returns the file name of the blob with that SHA-256 (which need not
// exist), or ErrBadHash.
func (s *Store) Path(sha256hex string) (string, error) {
	if !api.ValidSHA256(sha256hex) {
		return "", fmt.Errorf("%w: %q", ErrBadHash, sha256hex)
	}
	return s.path(sha256hex), nil
}

// Open opens the blob with that SHA-256 for reading.
func (s *Store) Open(sha256hex string) (*os.File, error) {
	p, err := s.Path(sha256hex)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, sha256hex)
	}
	if err != nil {
		return nil, fmt.Errorf("media: open blob: %w", err)
	}
	return f, nil
}

// Has reports whether the blob with that SHA-256 is stored.
func (s *Store) Has(sha256hex string) (bool, error) {
	p, err := s.Path(sha256hex)
	if err != nil {
		return false, err
	}
	_, err = s.fs.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("media: %w", err)
	}
	return true, nil
}

// Remove removes the blob with that SHA-256 and syncs its directory, so
// that the removal survives a crash: true when it was there. The engine
// removes only what a purge left named by no media record.
func (s *Store) Remove(sha256hex string) (bool, error) {
	if s.readOnly {
		return false, errors.New("media: remove: the store is open read-only")
	}
	p, err := s.Path(sha256hex)
	if err != nil {
		return false, err
	}
	if err := s.fs.Remove(p); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("media: remove %s: %w", sha256hex, err)
	}
	if err := s.fs.SyncDir(filepath.Dir(p)); err != nil {
		return true, fmt.Errorf("media: remove %s: %w", sha256hex, err)
	}
	return true, nil
}

// Verify re-reads the blob with that SHA-256 and checks that its bytes
// still hash to it, for fsck. A mismatch gives ErrCorrupt.
func (s *Store) Verify(ctx context.Context, sha256hex string) error {
	f, err := s.Open(sha256hex)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, ctxio.Reader(ctx, f), make([]byte, bufSize)); err != nil {
		return fmt.Errorf("media: verify %s: %w", f.Name(), err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha256hex {
		return fmt.Errorf("%w: %s hashes to %s", ErrCorrupt, f.Name(), got)
	}
	return nil
}

// Walk calls fn with the digest and size of every stored blob, in no
// particular order, for fsck. A file in the store that is not named like a
// blob or is not where its name puts it is reported to fn's caller as an
// error naming it.
func (s *Store) Walk(ctx context.Context, fn func(sha256hex string, size int64) error) error {
	if _, err := os.Stat(s.blobs); errors.Is(err, fs.ErrNotExist) && s.readOnly {
		return nil // a store never written: fsck opens it without creating it
	}
	return filepath.WalkDir(s.blobs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("media: walk: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		if !api.ValidSHA256(name) || s.path(name) != p {
			return fmt.Errorf("media: walk: %s is not a blob of this store (a blob is named by its SHA-256 under sha256/ab/cd/)", p)
		}
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("media: walk: %w", err)
		}
		return fn(name, fi.Size())
	})
}
