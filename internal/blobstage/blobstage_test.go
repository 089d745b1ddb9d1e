package blobstage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"
)

func TestCopyLimit(t *testing.T) {
	data := bytes.Repeat([]byte("spark"), 100_000)
	for _, tc := range []struct {
		name  string
		limit int64
		want  int64
		err   error
	}{
		{"no limit", -1, int64(len(data)), nil},
		{"exact", int64(len(data)), int64(len(data)), nil},
		{"one short", int64(len(data)) - 1, int64(len(data)) - 1, ErrTooLarge},
		{"zero", 0, 0, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			d := NewDigest()
			n, err := Copy(context.Background(), &w, d, bytes.NewReader(data), tc.limit)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if n != tc.want || int64(w.Len()) != n || d.Size() != n {
				t.Fatalf("n = %d, written %d, hashed %d; want %d", n, w.Len(), d.Size(), tc.want)
			}
			if want := sha256.Sum256(w.Bytes()); d.Sum() != want {
				t.Fatal("the digest is not of the bytes written")
			}
		})
	}
}

func TestCopyReadError(t *testing.T) {
	r := io.MultiReader(bytes.NewReader(make([]byte, 1000)), iotest.ErrReader(io.ErrUnexpectedEOF))
	var w bytes.Buffer
	n, err := Copy(context.Background(), &w, NewDigest(), r, -1)
	var re *ReadError
	if !errors.As(err, &re) || n != 1000 || re.N != 1000 {
		t.Fatalf("n = %d, err = %v; want a ReadError after 1000 bytes", n, err)
	}
}

// A digest saved and resumed between parts hashes as one over the whole.
func TestDigestResume(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 77_777)
	d := NewDigest()
	var w bytes.Buffer
	for off := 0; off < len(data); off += 100_003 {
		state, err := d.State()
		if err != nil {
			t.Fatal(err)
		}
		if d, err = ResumeDigest(state); err != nil {
			t.Fatal(err)
		}
		end := min(off+100_003, len(data))
		if _, err := Copy(context.Background(), &w, d, bytes.NewReader(data[off:end]), -1); err != nil {
			t.Fatal(err)
		}
	}
	want := sha256.Sum256(data)
	if d.Hex() != hex.EncodeToString(want[:]) || d.Size() != int64(len(data)) {
		t.Fatalf("resumed digest %s over %d bytes, want %x over %d", d.Hex(), d.Size(), want, len(data))
	}
	if _, err := ResumeDigest([]byte("short")); err == nil {
		t.Fatal("a short state was resumed")
	}
}

func TestStagePlace(t *testing.T) {
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, "stage-*")
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("a small copy")
	d, err := Stage(context.Background(), f, bytes.NewReader(data), 100)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, d.Hex())
	if err := Place(OS, f.Name(), final); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(final)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("placed %q, %v", got, err)
	}
}

// TestCopyReusesItsBuffer: staging one blob after another (a restore, a
// batch of uploads) allocates no new copy buffer each time.
func TestCopyReusesItsBuffer(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 1<<20)
	Copy(context.Background(), io.Discard, NewDigest(), bytes.NewReader(body), -1) // warm the pool
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	for range 20 {
		Copy(context.Background(), io.Discard, NewDigest(), bytes.NewReader(body), -1)
	}
	runtime.ReadMemStats(&ms)
	if per := (ms.TotalAlloc - before) / 20; per >= BufSize {
		t.Errorf("Copy of 1 MiB allocates %d bytes each time: a new buffer of %d", per, BufSize)
	}
}
