package backup

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"filippo.io/age"
	"golang.org/x/crypto/chacha20poly1305"
)

// unsealed reads the plain bytes of an age file as it streams in, each
// chunk decrypted in place in the caller's buffer.
//
// age's own reader (age.Decrypt) gives a new 64 KiB buffer to every
// chunk and copies each chunk out of it: for a restore of 300 MB, 300 MB
// more allocated, cleared, copied and collected, on a machine whose two
// cores the store, the hash and the disk already keep busy. age decrypts
// the header here (age.DecryptHeader checks its MAC and unwraps the file
// key); what this reads is the payload the age spec (C2SP age.md,
// "Payload") defines: a 16-byte nonce, the key HKDF-SHA-256(file key,
// nonce, "payload"), then ChaCha20-Poly1305 chunks of 64 KiB, each with
// a 16-byte tag, under the nonce of an 11-byte big-endian counter and a
// last-chunk flag. It refuses all that age.Decrypt refuses: a chunk that
// does not authenticate, a payload cut at a chunk's end (no last
// chunk), bytes after the last chunk, and an empty last chunk after
// others. TestUnsealed holds it to age.Decrypt, byte for byte and error
// for error.
type unsealed struct {
	src   *bufio.Reader
	aead  cipher.AEAD
	nonce [chacha20poly1305.NonceSize]byte
	// own holds a chunk when the caller's buffer is smaller than one;
	// rest is what of it the caller has yet to read.
	own  []byte
	rest []byte
	err  error // io.EOF after the last chunk
}

const (
	sealedEncChunk = sealedChunk + sealedTag
	// maxSealedHeader bounds the header read: Spark's are 176 bytes, and
	// a store's bytes are not trusted to end one.
	maxSealedHeader = 16 << 10
	lastChunkFlag   = 0x01
)

// unseal reads the header of the age file src streams, decrypts it with
// id and gives the reader of its payload.
func unseal(src io.Reader, id age.Identity) (*unsealed, error) {
	br := bufio.NewReaderSize(src, 4096)
	var hdr bytes.Buffer
	for {
		line, err := br.ReadSlice('\n')
		hdr.Write(line)
		if hdr.Len() > maxSealedHeader {
			return nil, fmt.Errorf("failed to read header: longer than %d bytes", maxSealedHeader)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("failed to read header: %w", err)
		}
		if bytes.HasPrefix(line, []byte("---")) {
			break
		}
	}
	fileKey, err := age.DecryptHeader(hdr.Bytes(), id)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, 16)
	if _, err := io.ReadFull(br, nonce); err != nil {
		return nil, fmt.Errorf("failed to read nonce: %w", err)
	}
	key, err := hkdf.Key(sha256.New, fileKey, nonce, "payload", chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		return nil, err
	}
	return &unsealed{src: br, aead: aead}, nil
}

func (u *unsealed) Read(p []byte) (int, error) {
	if len(u.rest) > 0 {
		n := copy(p, u.rest)
		u.rest = u.rest[n:]
		return n, nil
	}
	if u.err != nil {
		return 0, u.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) >= sealedEncChunk {
		plain, err := u.chunk(p[:sealedEncChunk])
		if err != nil {
			u.err = err
			return 0, err
		}
		return len(plain), nil
	}
	if u.own == nil {
		u.own = make([]byte, sealedEncChunk)
	}
	plain, err := u.chunk(u.own)
	if err != nil {
		u.err = err
		return 0, err
	}
	n := copy(p, plain)
	u.rest = plain[n:]
	return n, nil
}

// chunk reads the next chunk into buf (sealedEncChunk long) and decrypts
// it there, giving its plain bytes (at buf's start). After the last
// chunk u.err is io.EOF.
func (u *unsealed) chunk(buf []byte) ([]byte, error) {
	n, err := io.ReadFull(u.src, buf)
	last := false
	switch {
	case err == io.EOF:
		return nil, io.ErrUnexpectedEOF // no last chunk: cut short
	case err == io.ErrUnexpectedEOF:
		last = true // a short chunk is the last
		// Empty, and not the first (a nonce past zero): refused, as age does.
		if u.nonce != ([chacha20poly1305.NonceSize]byte{}) && n == sealedTag {
			return nil, errors.New("last chunk is empty")
		}
	case err != nil:
		return nil, err
	default:
		// A whole chunk is the last if nothing follows it. Decrypting in
		// place leaves no ciphertext to try again with the other flag,
		// so the flag is known before Open.
		if _, perr := u.src.Peek(1); perr == io.EOF {
			last = true
		} else if perr != nil {
			return nil, perr
		}
	}
	if last {
		u.nonce[len(u.nonce)-1] = lastChunkFlag
	}
	plain, err := u.aead.Open(buf[:0], u.nonce[:], buf[:n], nil)
	if err != nil {
		return nil, errors.New("failed to decrypt and authenticate payload chunk, file may be corrupted or tampered with")
	}
	if last {
		u.err = io.EOF
	} else if !incNonce(&u.nonce) {
		return nil, errors.New("payload too long")
	}
	return plain, nil
}

// incNonce adds one to the nonce's 11-byte counter; false once it wraps.
func incNonce(n *[chacha20poly1305.NonceSize]byte) bool {
	for i := len(n) - 2; i >= 0; i-- {
		n[i]++
		if n[i] != 0 {
			return true
		}
	}
	return false
}
