// Package blobstage is the one way a blob named by its SHA-256 is staged
// on disk, for the engine's media store (a whole upload, or the parts of a
// resumable one) and the replica's cache of small copies: the bytes are
// hashed while they stream to a temp file, which is fsync'ed, and only then
// renamed to its final name, after which the directory is fsync'ed. A blob
// under its final name is whole and durable.
//
// The running SHA-256 can be saved and resumed (Digest.State,
// ResumeDigest), so that a blob arriving in parts over several requests,
// and over restarts, is hashed once.
package blobstage

import (
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"sync"

	"github.com/sparkfamily/spark/internal/atomicfile"
)

// ErrTooLarge is returned by Copy and Stage when the stream has more bytes
// than the limit; the bytes past it are not written.
var ErrTooLarge = errors.New("blobstage: more bytes than the limit")

// ReadError is a failure to read the stream (the client's side), as
// opposed to a failure to write the file (the disk's side).
type ReadError struct {
	N   int64 // bytes read and written before it
	Err error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("read the stream after %d bytes: %v", e.N, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// BufSize is the copy buffer: the most of a stream held in memory.
const BufSize = 256 << 10

// bufs keeps Copy's buffers: a restore or a batch of uploads stages one
// blob after another, and a new buffer each time is garbage to collect.
var bufs = sync.Pool{New: func() any { b := make([]byte, BufSize); return &b }}

// Digest is a SHA-256 running over a blob's bytes, with their count.
type Digest struct {
	h hash.Hash
	n int64
}

// NewDigest starts a digest over no bytes.
func NewDigest() *Digest { return &Digest{h: sha256.New()} }

// ResumeDigest restores a digest saved by State.
func ResumeDigest(state []byte) (*Digest, error) {
	if len(state) < 8 {
		return nil, errors.New("blobstage: a saved digest is too short")
	}
	d := NewDigest()
	d.n = int64(binary.BigEndian.Uint64(state[:8]))
	if err := d.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state[8:]); err != nil {
		return nil, fmt.Errorf("blobstage: resume a saved digest: %w", err)
	}
	if d.n < 0 {
		return nil, errors.New("blobstage: a saved digest has a negative size")
	}
	return d, nil
}

// State saves the digest, to be resumed by ResumeDigest.
func (d *Digest) State() ([]byte, error) {
	b, err := d.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("blobstage: save a digest: %w", err)
	}
	out := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(b)), uint64(d.n))
	return append(out, b...), nil
}

// Size is how many bytes the digest has seen.
func (d *Digest) Size() int64 { return d.n }

// Sum is the SHA-256 of the bytes seen so far.
func (d *Digest) Sum() [32]byte {
	var s [32]byte
	d.h.Sum(s[:0])
	return s
}

// Hex is Sum in lower-case hex.
func (d *Digest) Hex() string {
	s := d.Sum()
	return hex.EncodeToString(s[:])
}

func (d *Digest) write(b []byte) {
	d.h.Write(b)
	d.n += int64(len(b))
}

// Copy streams r to w while hashing it into d, until r ends, ctx ends, or
// more than limit bytes came (ErrTooLarge; limit < 0 is no limit). It
// writes every byte it hashes and never more than limit, so that what w
// holds always matches d. A failure to read r is a *ReadError.
func Copy(ctx context.Context, w io.Writer, d *Digest, r io.Reader, limit int64) (int64, error) {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, &ReadError{N: n, Err: err}
		}
		p := buf
		if limit >= 0 && int64(len(p)) > limit-n+1 {
			p = p[:limit-n+1]
		}
		m, rerr := r.Read(p)
		if m > 0 {
			if limit >= 0 && n+int64(m) > limit {
				m = int(limit - n)
				if m > 0 {
					if _, err := w.Write(p[:m]); err != nil {
						return n, fmt.Errorf("write: %w", err)
					}
					d.write(p[:m])
					n += int64(m)
				}
				return n, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
			}
			if _, err := w.Write(p[:m]); err != nil {
				return n, fmt.Errorf("write: %w", err)
			}
			d.write(p[:m])
			n += int64(m)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, &ReadError{N: n, Err: rerr}
		}
	}
}

// File is a temp file being staged (*os.File and the engine's vfs.File
// are).
type File interface {
	io.Writer
	Name() string
	Sync() error
	Close() error
}

// Stage streams r to f while hashing it, fsyncs f and closes it. A stream
// of more than limit bytes (limit < 0: no limit) is ErrTooLarge. The caller
// created f and removes it on error.
func Stage(ctx context.Context, f File, r io.Reader, limit int64) (*Digest, error) {
	d := NewDigest()
	if _, err := Copy(ctx, f, d, r, limit); err != nil {
		f.Close()
		return nil, fmt.Errorf("stage %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("stage: fsync %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("stage: close %s: %w", f.Name(), err)
	}
	return d, nil
}

// Dirs renames and syncs directories (the engine's vfs.FS does; OS is the
// operating system's).
type Dirs interface {
	Rename(oldpath, newpath string) error
	SyncDir(dir string) error
}

// Place renames a staged (fsync'ed, closed) file to its final name and
// fsyncs the final name's directory.
func Place(fsys Dirs, temp, final string) error {
	if err := fsys.Rename(temp, final); err != nil {
		return fmt.Errorf("place %s: %w", final, err)
	}
	if err := fsys.SyncDir(dirOf(final)); err != nil {
		return fmt.Errorf("place %s: %w", final, err)
	}
	return nil
}

func dirOf(p string) string { return filepath.Dir(p) }

// OS is the operating system's Dirs.
var OS Dirs = osDirs{}

type osDirs struct{}

func (osDirs) Rename(oldpath, newpath string) error { return atomicfile.Rename(oldpath, newpath) }
func (osDirs) SyncDir(dir string) error             { return atomicfile.SyncDir(dir) }
