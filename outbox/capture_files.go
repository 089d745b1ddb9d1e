package outbox

import (
	"crypto/sha256"
	"errors"
	"hash"
	"io"

	"github.com/sparkfamily/spark/internal/atomicfile"
)

// syncDir makes the entries of a directory durable; tests replace it to
// watch the order of a capture's syncs.
var syncDir = atomicfile.SyncDir

// writeErr marks an error from writing into the outbox (as opposed to
// reading the source).
type writeErr struct{ err error }

func (e *writeErr) Error() string { return e.err.Error() }
func (e *writeErr) Unwrap() error { return e.err }

func isWriteErr(err error) bool {
	var we *writeErr
	return errors.As(err, &we)
}

// hashWriter tees writes into a hash and tags write failures.
type hashWriter struct {
	w writeFile
	h hash.Hash
	n int64
}

func (hw *hashWriter) Write(b []byte) (int, error) {
	n, err := hw.w.Write(b)
	hw.h.Write(b[:n])
	hw.n += int64(n)
	if err != nil {
		return n, &writeErr{err}
	}
	return n, nil
}

// hashed is a file written into the outbox: its size and SHA-256.
type hashed struct {
	size int64
	sum  []byte
}

// fillHashed creates name and lets fill write into it, returning its size
// and SHA-256 and the file, still open and not synced (syncClose it). On
// error the file is closed.
func (o *Outbox) fillHashed(name string, fill func(io.Writer) error) (hashed, writeFile, error) {
	f, err := o.create(name)
	if err != nil {
		return hashed{}, nil, err
	}
	hw := &hashWriter{w: f, h: sha256.New()}
	if err := fill(hw); err != nil {
		f.Close()
		return hashed{}, nil, err
	}
	return hashed{size: hw.n, sum: hw.h.Sum(nil)}, f, nil
}

// syncClose fsyncs f and closes it, returning the first error.
func syncClose(f writeFile) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
