package backup

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"

	"filippo.io/age"
	"golang.org/x/crypto/chacha20poly1305"
)

// readIn reads all of r in reads of size bytes.
func readIn(r io.Reader, size int) ([]byte, error) {
	var out []byte
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// craft returns an age file to testKey whose payload is the chunks
// given, each sealed with the flag given: files age never writes, to
// hold unsealed to the rules age keeps when it reads.
func craft(t *testing.T, chunks [][]byte, lastFlags []bool) []byte {
	t.Helper()
	c, err := newSealer(testKey).sealBytes(nil)
	if err != nil {
		t.Fatal(err)
	}
	hdrLen := sealedHeader - 16
	fileKey, err := age.DecryptHeader(c[:hdrLen], testKey.id)
	if err != nil {
		t.Fatal(err)
	}
	nonce := c[hdrLen:sealedHeader]
	key, err := hkdf.Key(sha256.New, fileKey, nonce, "payload", chacha20poly1305.KeySize)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), c[:sealedHeader]...)
	var n [chacha20poly1305.NonceSize]byte
	for i, ch := range chunks {
		cn := n
		if lastFlags[i] {
			cn[len(cn)-1] = lastChunkFlag
		}
		out = aead.Seal(out, cn[:], ch, nil)
		incNonce(&n)
	}
	return out
}

// TestUnsealed holds unsealed to age.Decrypt: the same plain bytes, read
// in any size, from every file age reads, and an error from every file
// age refuses.
func TestUnsealed(t *testing.T) {
	s := newSealer(testKey)
	seal := func(n int) []byte {
		b := make([]byte, n)
		rand.NewChaCha8([32]byte{byte(n), byte(n >> 8), byte(n >> 16)}).Read(b)
		c, err := s.sealBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const chunk = sealedChunk
	full := bytes.Repeat([]byte{'a'}, chunk)
	cases := map[string][]byte{}
	for _, n := range []int{0, 1, 1000, chunk - 1, chunk, chunk + 1, 2 * chunk, 3*chunk + 17} {
		c := seal(n)
		cases["size "+strconv.Itoa(n)] = c
		cases["size "+strconv.Itoa(n)+", one byte more"] = append(append([]byte(nil), c...), 0)
		cases["size "+strconv.Itoa(n)+", one byte less"] = c[:len(c)-1]
		flip := append([]byte(nil), c...)
		flip[len(flip)-1] ^= 1
		cases["size "+strconv.Itoa(n)+", last byte flipped"] = flip
		flip = append([]byte(nil), c...)
		flip[sealedHeader+1] ^= 1
		cases["size "+strconv.Itoa(n)+", first chunk's byte flipped"] = flip
		hdr := append([]byte(nil), c...)
		hdr[40] ^= 1
		cases["size "+strconv.Itoa(n)+", header flipped"] = hdr
	}
	two := seal(2 * chunk)
	cases["cut after a whole chunk"] = two[:sealedHeader+sealedEncChunk]
	cases["cut in the header"] = two[:50]
	cases["cut in the nonce"] = two[:sealedHeader-3]
	cases["header only"] = two[:sealedHeader-16]
	cases["nothing"] = nil
	cases["an empty last chunk after one"] = craft(t, [][]byte{full, nil}, []bool{false, true})
	cases["a whole last chunk"] = craft(t, [][]byte{full}, []bool{true})
	cases["two chunks marked last"] = craft(t, [][]byte{full, []byte("x")}, []bool{true, true})
	cases["no chunk marked last"] = craft(t, [][]byte{full, []byte("x")}, []bool{false, false})
	cases["a short chunk not last"] = craft(t, [][]byte{[]byte("x"), full}, []bool{false, true})
	cases["a long header"] = append([]byte("age-encryption.org/v1\n-> X25519 "), bytes.Repeat([]byte("A"), 20<<10)...)

	other, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unseal(bytes.NewReader(two), other); err == nil {
		t.Error("another key opened the file")
	}

	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want, werr := io.ReadAll(mustDecrypt(c))
			for _, size := range []int{1, 100, sealedEncChunk - 1, sealedEncChunk, 256 << 10} {
				u, err := unseal(bytes.NewReader(c), testKey.id)
				var got []byte
				if err == nil {
					got, err = readIn(u, size)
				}
				switch {
				case werr != nil && err == nil:
					t.Fatalf("reads of %d: age refuses it (%v), unsealed read %d bytes", size, werr, len(got))
				case werr == nil && err != nil:
					t.Fatalf("reads of %d: age reads it, unsealed says %v", size, err)
				case werr == nil && !bytes.Equal(got, want):
					t.Fatalf("reads of %d: %d bytes differ from age's %d", size, len(got), len(want))
				}
			}
		})
	}
}

// mustDecrypt is age.Decrypt of c to testKey, its error given by the
// reader.
func mustDecrypt(c []byte) io.Reader {
	r, err := age.Decrypt(bytes.NewReader(c), testKey.id)
	if err != nil {
		return errReader{err}
	}
	return r
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
