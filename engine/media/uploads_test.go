package media

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/internal/blobstage"
)

// peekReader gives data, and before each read calls look with the bytes
// given so far: what the store holds while a part is still arriving.
type peekReader struct {
	data []byte
	n    int
	look func(given int)
}

func (p *peekReader) Read(b []byte) (int, error) {
	if p.n == len(p.data) {
		return 0, io.EOF
	}
	p.look(p.n)
	m := copy(b[:min(len(b), 64<<10)], p.data[p.n:])
	p.n += m
	return m, nil
}

// TestAppendUpload_Stretches: a large part is counted, durably, every
// UploadSyncEvery bytes while it arrives (what a restart would find never
// lags more than that behind the bytes received), and a part past the
// limit keeps nothing, not even the stretches already counted.
func TestAppendUpload_Stretches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		limit  int64
		offset int64 // after the append
		err    error
	}{
		{"small", 1000, -1, 1000, nil},
		{"one stretch", UploadSyncEvery, -1, UploadSyncEvery, nil},
		{"several", 2*UploadSyncEvery + 4567, -1, 2*UploadSyncEvery + 4567, nil},
		{"to the limit", 2*UploadSyncEvery + 1, 2*UploadSyncEvery + 1, 2*UploadSyncEvery + 1, nil},
		{"past the limit", 2*UploadSyncEvery + 2, 2*UploadSyncEvery + 1, 0, blobstage.ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			data := make([]byte, tc.size)
			rand.Read(data)
			u := &Upload{ID: ulid.Make().String(), MomentID: ulid.Make().String(), Role: "original", Length: int64(tc.size), SHA256: sum(data), Updated: time.Now()}
			if err := s.CreateUpload(u); err != nil {
				t.Fatal(err)
			}
			r := &peekReader{data: data, look: func(given int) {
				held, err := s.LoadUpload(u.ID)
				if err != nil {
					t.Fatal(err)
				}
				if want := int64(given) / UploadSyncEvery * UploadSyncEvery; held.Offset < want || held.Offset > int64(given) {
					t.Fatalf("after %d bytes given the state counts %d, want %d..%d", given, held.Offset, want, given)
				}
			}}
			n, err := s.AppendUpload(context.Background(), u, r, tc.limit, time.Now())
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("append: %v, want %v", err, tc.err)
			}
			if tc.err == nil && n != tc.offset {
				t.Fatalf("append took %d bytes, want %d", n, tc.offset)
			}
			held, err := s.LoadUpload(u.ID)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(s.uploadDir(u.ID), "part"))
			if err != nil {
				t.Fatal(err)
			}
			if u.Offset != tc.offset || held.Offset != tc.offset || fi.Size() != tc.offset {
				t.Fatalf("offset %d, stored %d, part %d bytes; want %d", u.Offset, held.Offset, fi.Size(), tc.offset)
			}
			got, err := UploadSum(held)
			if err != nil {
				t.Fatal(err)
			}
			if got != sum(data[:tc.offset]) {
				t.Fatal("the stored digest is not the held bytes'")
			}
			if b, _ := os.ReadFile(filepath.Join(s.uploadDir(u.ID), "part")); !bytes.Equal(b, data[:tc.offset]) {
				t.Fatal("the part file is not the held bytes")
			}
		})
	}
}

// TestLoadUpload_Version0: an upload whose state was written before
// uploads had members (format 0, engine/media at fe450c2: testdata/
// uploads-v0, 10 of its 24 bytes in) is read as its token's member's, and
// goes on: the rest is appended, the state is written in UploadFormat,
// and the whole file is committed. A state of a later format is refused.
func TestLoadUpload_Version0(t *testing.T) {
	const id = "01JF0000000000000000000001"
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/uploads-v0")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.LoadUpload(id)
	if err != nil {
		t.Fatal(err)
	}
	if u.Version != UploadFormat || u.Member != "dad" || u.Client != "dad" || u.Offset != 10 || u.Length != 24 {
		t.Fatalf("loaded %+v; want version %d, member and client dad, 10 of 24 bytes", u, UploadFormat)
	}
	data := []byte("the bytes of dad's photo")
	if _, err := s.AppendUpload(context.Background(), u, bytes.NewReader(data[10:]), u.Length-u.Offset, time.Now()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, UploadsDir, id, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if saved["version"] != float64(UploadFormat) || saved["member"] != "dad" || saved["client"] != "dad" {
		t.Fatalf("the state written after an append: %s; want version %d, member and client dad", b, UploadFormat)
	}
	if got, err := UploadSum(u); err != nil || got != u.SHA256 || got != sum(data) {
		t.Fatalf("the upload's SHA-256 %s (%v), want %s", got, err, sum(data))
	}
	if err := s.CommitUpload(u); err != nil {
		t.Fatal(err)
	}

	newer := &Upload{ID: ulid.Make().String(), MomentID: ulid.Make().String(), Role: "copy", Length: 1, Member: "kid"}
	if err := s.CreateUpload(newer); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(filepath.Join(dir, UploadsDir, newer.ID, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"version":1`), []byte(`"version":2`), 1)
	if err := os.WriteFile(filepath.Join(dir, UploadsDir, newer.ID, "state.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadUpload(newer.ID); err == nil || errors.Is(err, ErrNoUpload) {
		t.Fatalf("a state of format 2 loaded: %v", err)
	}
}
