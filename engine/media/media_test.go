package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openStore(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(tb.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func tempFiles(tb testing.TB, s *Store) []string {
	tb.Helper()
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func put(tb testing.TB, s *Store, b []byte) *Staged {
	tb.Helper()
	st, err := s.Stage(context.Background(), bytes.NewReader(b), 0)
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.Commit(); err != nil {
		tb.Fatal(err)
	}
	return st
}

func TestStore_StageCommitOpen(t *testing.T) {
	s := openStore(t)
	body := bytes.Repeat([]byte("photo bytes "), 100000) // larger than one buffer
	st, err := s.Stage(context.Background(), bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	if st.SHA256 != sum(body) || st.Size != int64(len(body)) || hex.EncodeToString(st.Sum[:]) != st.SHA256 {
		t.Fatalf("Staged = %s %d, want %s %d", st.SHA256, st.Size, sum(body), len(body))
	}
	if has, _ := s.Has(st.SHA256); has {
		t.Fatal("a staged blob is visible before Commit")
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := st.Discard(); err != nil {
		t.Errorf("Discard after Commit = %v, want nil", err)
	}
	p := filepath.Join(s.Dir(), "sha256", st.SHA256[:2], st.SHA256[2:4], st.SHA256)
	if got, _ := s.Path(st.SHA256); got != p {
		t.Errorf("Path = %s, want %s", got, p)
	}
	f, err := s.Open(st.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("stored bytes differ (%d bytes, %v)", len(got), err)
	}
	if err := s.Verify(context.Background(), st.SHA256); err != nil {
		t.Errorf("Verify = %v", err)
	}
	if left := tempFiles(t, s); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestStore_StageLimit(t *testing.T) {
	tests := []struct {
		name    string
		size    int64
		limit   int64
		tooBig  bool
		stagedN int64
	}{
		{"Empty", 0, 10, false, 0},
		{"UnderLimit", 9, 10, false, 9},
		{"ExactLimit", 10, 10, false, 10},
		{"OneOver", 11, 10, true, 0},
		{"FarOver", 5 << 20, 1 << 20, true, 0},
		{"NoLimit", 3 << 20, 0, false, 3 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			r := io.LimitReader(zeros{}, tt.size)
			st, err := s.Stage(context.Background(), r, tt.limit)
			if tt.tooBig {
				if !errors.Is(err, ErrTooLarge) {
					t.Fatalf("Stage = %v, want ErrTooLarge", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if st.Size != tt.stagedN {
					t.Errorf("Size = %d, want %d", st.Size, tt.stagedN)
				}
				if err := st.Discard(); err != nil {
					t.Fatal(err)
				}
			}
			if left := tempFiles(t, s); len(left) != 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestStore_StageNeverBuffersWholeStream(t *testing.T) {
	// A stream far over the limit is refused after reading at most
	// limit+1 bytes (plus one buffer), not read to its end.
	s := openStore(t)
	cr := &countReader{r: zeros{}}
	_, err := s.Stage(context.Background(), cr, 1<<20)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Stage = %v, want ErrTooLarge", err)
	}
	if cr.n > 1<<20+bufSize {
		t.Errorf("read %d bytes of an endless stream with a 1 MiB limit", cr.n)
	}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestStore_CommitExisting(t *testing.T) {
	s := openStore(t)
	body := []byte("same bytes")
	first := put(t, s, body)
	p, _ := s.Path(first.SHA256)
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	second := put(t, s, body)
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if second.SHA256 != first.SHA256 || !os.SameFile(before, after) {
		t.Error("committing the same bytes again replaced the stored blob")
	}
	if left := tempFiles(t, s); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	if err := second.Commit(); err == nil {
		t.Error("a second Commit of the same Staged succeeded")
	}
}

func TestStore_ConcurrentSameBytes(t *testing.T) {
	s := openStore(t)
	body := bytes.Repeat([]byte{7}, 300000)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := s.Stage(context.Background(), bytes.NewReader(body), 1<<20)
			if err != nil {
				errs <- err
				return
			}
			if err := st.Commit(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var blobs []string
	err := s.Walk(context.Background(), func(h string, size int64) error {
		blobs = append(blobs, h)
		if size != int64(len(body)) {
			t.Errorf("blob %s has size %d", h, size)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 1 || blobs[0] != sum(body) {
		t.Errorf("blobs after 16 concurrent stages of the same bytes: %v", blobs)
	}
	if err := s.Verify(context.Background(), sum(body)); err != nil {
		t.Error(err)
	}
	if left := tempFiles(t, s); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestOpen_RemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	kept := put(t, s, []byte("kept"))
	for _, name := range []string{"stage-123", "stage-456"} {
		if err := os.WriteFile(filepath.Join(dir, "tmp", name), []byte("half an upload"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	s2, err := Open(dir, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if left := tempFiles(t, s2); len(left) != 0 {
		t.Errorf("temp files left after Open: %v", left)
	}
	if !strings.Contains(logs.String(), "stage-123") {
		t.Errorf("removing leftovers was not logged: %q", logs.String())
	}
	if err := s2.Verify(context.Background(), kept.SHA256); err != nil {
		t.Errorf("a committed blob did not survive reopening: %v", err)
	}
}

func TestStore_Errors(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	t.Run("ReadError", func(t *testing.T) {
		boom := errors.New("connection reset")
		_, err := s.Stage(ctx, io.MultiReader(strings.NewReader("abc"), errReader{boom}), 0)
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "after 3 bytes") {
			t.Errorf("Stage = %v, want the read error with context", err)
		}
		if left := tempFiles(t, s); len(left) != 0 {
			t.Errorf("temp files left: %v", left)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Stage(cctx, zeros{}, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("Stage = %v, want context.Canceled", err)
		}
	})
	t.Run("CommitDiskError", func(t *testing.T) {
		body := []byte("blocked")
		h := sum(body)
		// A file where the blob's directory should be makes the
		// directory impossible to create.
		if err := os.WriteFile(filepath.Join(s.blobs, h[:2]), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := s.Stage(ctx, bytes.NewReader(body), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Discard()
		err = st.Commit()
		if err == nil || !strings.Contains(err.Error(), "media: commit "+h) {
			t.Errorf("Commit = %v, want an error naming the blob", err)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		h := sum([]byte("never stored"))
		if _, err := s.Open(h); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open = %v, want ErrNotFound", err)
		}
		if err := s.Verify(ctx, h); !errors.Is(err, ErrNotFound) {
			t.Errorf("Verify = %v, want ErrNotFound", err)
		}
		if has, err := s.Has(h); has || err != nil {
			t.Errorf("Has = %v, %v", has, err)
		}
	})
	t.Run("BadHash", func(t *testing.T) {
		for _, h := range []string{"", "../../etc/passwd", strings.Repeat("A", 64), strings.Repeat("a", 63), strings.Repeat("g", 64)} {
			if _, err := s.Open(h); !errors.Is(err, ErrBadHash) {
				t.Errorf("Open(%q) = %v, want ErrBadHash", h, err)
			}
			if _, err := s.Has(h); !errors.Is(err, ErrBadHash) {
				t.Errorf("Has(%q) = %v, want ErrBadHash", h, err)
			}
		}
	})
	t.Run("OpenOnAFile", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, nil, 0o600)
		if _, err := Open(f, nil); err == nil || !strings.Contains(err.Error(), "media: open store") {
			t.Errorf("Open on a file = %v", err)
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestStore_VerifyCorrupt(t *testing.T) {
	s := openStore(t)
	st := put(t, s, []byte("original bytes"))
	p, _ := s.Path(st.SHA256)
	if err := os.WriteFile(p, []byte("bit rot"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := s.Verify(context.Background(), st.SHA256)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) {
		t.Errorf("Verify = %v, want ErrCorrupt naming %s", err, p)
	}
}

func TestStore_WalkStrayFile(t *testing.T) {
	s := openStore(t)
	put(t, s, []byte("a"))
	stray := filepath.Join(s.blobs, "notes.txt")
	os.WriteFile(stray, nil, 0o600)
	err := s.Walk(context.Background(), func(string, int64) error { return nil })
	if err == nil || !strings.Contains(err.Error(), stray) {
		t.Errorf("Walk = %v, want an error naming %s", err, stray)
	}
}

func BenchmarkStage(b *testing.B) {
	s := openStore(b)
	const size = 50 << 20
	b.SetBytes(size)
	for b.Loop() {
		st, err := s.Stage(context.Background(), io.LimitReader(zeros{}, size), 0)
		if err != nil {
			b.Fatal(err)
		}
		st.Discard()
	}
}
