package media

import (
	"bytes"
	"context"
	"crypto/rand"
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
