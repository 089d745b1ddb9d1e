package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"

	"filippo.io/age"
)

// Encryption is the manifest's "encryption" of a format-2 copy: every
// object but the manifest is an age file encrypted to one X25519
// recipient, the manifest's "recipient".
const Encryption = "age-x25519"

var (
	// ErrNeedKey is returned by Restore of an encrypted copy given no key.
	ErrNeedKey = errors.New("backup: this copy is encrypted; give the key with --key FILE (the recovery text printed by `spark-engine backup key show`)")
	// ErrWrongKey is returned by Restore of an encrypted copy given a key
	// it was not made for, and by a Shipper whose key is not the copy's.
	ErrWrongKey = errors.New("backup: the key given is not this copy's key")
)

// The size of an age file of one X25519 recipient (age v1, as
// filippo.io/age writes it; C2SP age.md): a fixed header, a 16-byte nonce,
// then the payload in chunks of 64 KiB, each with a 16-byte tag; an empty
// payload is one empty chunk.
const (
	// sealedHeader is "age-encryption.org/v1\n", "-> X25519 " and the
	// ephemeral share (43 base64 characters) "\n", the wrapped file key
	// (43) "\n", "--- " and the MAC (43) "\n", and the nonce.
	sealedHeader = 22 + 10 + 43 + 1 + 43 + 1 + 4 + 43 + 1 + 16
	sealedChunk  = 64 << 10
	sealedTag    = 16
)

// sealedSize is the exact size of the age file of n plain bytes.
//
// putMedia compares it with the size of a photo's object already in the
// copy, as it compares the plain size in a format-1 copy: a photo cut
// short in the copy (a store that kept part of a body) is then caught at
// the next pass, not only by a restore or a drill. age writes the same
// header size for every file to one X25519 recipient, so the size is
// exact; TestSealedSize holds it to what age writes.
func sealedSize(n int64) int64 {
	chunks := (n + sealedChunk - 1) / sealedChunk
	if chunks == 0 {
		chunks = 1
	}
	return sealedHeader + n + chunks*sealedTag
}

// sealer encrypts a copy's bodies to its recipient; a nil sealer leaves
// them plain (a format-1 copy).
type sealer struct {
	key *Key
	r   *age.X25519Recipient
}

func newSealer(k *Key) *sealer { return &sealer{key: k, r: k.id.Recipient()} }

// sealBytes encrypts b; a segment is at most a few MiB.
func (s *sealer) sealBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(sealedSize(int64(len(b)))))
	w, err := age.Encrypt(&buf, s.r)
	if err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	return buf.Bytes(), nil
}

// sealed is an encrypted body in a temp file, ready to put.
type sealed struct {
	f         *os.File
	size      int64
	sum       [32]byte // the ciphertext's SHA-256
	plainSize int64
	plainSum  [32]byte
}

func (s *sealed) Close() error {
	err := s.f.Close()
	os.Remove(s.f.Name())
	return err
}

// sealFile encrypts what r holds into a temp file (the system's), hashing
// the plain bytes and the ciphertext as they pass: a photo is never held
// in memory, once or twice.
func (s *sealer) sealFile(r io.Reader) (*sealed, error) {
	f, err := os.CreateTemp("", "spark-backup-*")
	if err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	out := &sealed{f: f}
	ok := false
	defer func() {
		if !ok {
			out.Close()
		}
	}()
	ch := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, ch)}
	w, err := age.Encrypt(cw, s.r)
	if err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	ph := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, ph), r)
	if err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("backup: encrypt: %w", err)
	}
	out.size, out.plainSize = cw.n, n
	out.sum, out.plainSum = [32]byte(ch.Sum(nil)), [32]byte(ph.Sum(nil))
	ok = true
	return out, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// open decrypts the object rc holds, read from t under name. An object
// that does not decrypt (its header, or any chunk, fails age's checks)
// is damaged: the errors the reader gives then say so and name it; an
// error of the store's own reading is given as it is.
func (s *sealer) open(rc io.Reader, t Target, name string) (io.Reader, error) {
	src := &srcErr{r: rc}
	r, err := unseal(src, s.key.id)
	if err != nil {
		return nil, undecryptable(src, t, name, err)
	}
	return &openReader{r: r, src: src, t: t, name: name}, nil
}

// srcErr remembers the error of the store's reader.
type srcErr struct {
	r   io.Reader
	err error
}

func (s *srcErr) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

type openReader struct {
	r    io.Reader
	src  *srcErr
	t    Target
	name string
}

func (o *openReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if err != nil && err != io.EOF {
		err = undecryptable(o.src, o.t, o.name, err)
	}
	return n, err
}

func undecryptable(src *srcErr, t Target, name string, err error) error {
	if src.err != nil {
		return fmt.Errorf("backup: read %s: %w", name, src.err)
	}
	return fmt.Errorf("backup: %s in %s is damaged: it does not decrypt with the copy's key: %v", name, t, err)
}

// samePlain tells whether the object name in t decrypts to size bytes of
// SHA-256 sum. A Put of an encrypted body that meets ErrConflict asks it:
// age's output differs at every encryption, so a put retried after one
// that reached the store (a crash, or a timeout, before the pass noted
// it) finds another encryption of the same bytes, which is success.
func (s *sealer) samePlain(ctx context.Context, t Target, name string, size int64, sum [32]byte) (bool, error) {
	rc, err := t.Get(ctx, name)
	if err != nil {
		return false, err
	}
	defer rc.Close()
	src := &srcErr{r: rc}
	r, err := s.open(src, t, name)
	if err == nil {
		h := sha256.New()
		var n int64
		if n, err = io.Copy(h, r); err == nil {
			return n == size && [32]byte(h.Sum(nil)) == sum, nil
		}
	}
	if src.err != nil {
		return false, fmt.Errorf("backup: read %s: %w", name, src.err)
	}
	return false, nil // not to this key, or damaged: a conflict either way
}
