package oplog

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var fixedNow = time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)

func testOptions(tb testing.TB) Options {
	tb.Helper()
	return Options{Logger: slog.New(slog.NewTextHandler(tbWriter{tb}, nil)), Now: func() time.Time { return fixedNow }}
}

// tbWriter sends log lines to the test log.
type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func openLog(tb testing.TB, path string, opts Options) *Log {
	tb.Helper()
	l, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

func rec(op, rid, data string) Record {
	r := Record{Op: op, RequestID: rid}
	if data != "" {
		r.Data = json.RawMessage(data)
	}
	return r
}

func scanAll(tb testing.TB, l *Log, after uint64) []Record {
	tb.Helper()
	var out []Record
	if err := l.Scan(context.Background(), after, func(r Record) error {
		out = append(out, r)
		return nil
	}); err != nil {
		tb.Fatalf("Scan(%d): %v", after, err)
	}
	return out
}

func TestLog_AppendScanReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, testOptions(t))
	if got := l.LastSeq(); got != 0 {
		t.Fatalf("LastSeq of a new log = %d, want 0", got)
	}
	if got := scanAll(t, l, 0); len(got) != 0 {
		t.Fatalf("Scan of a new log gave %d records", len(got))
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))
	got1, err := l.Append(context.Background(),
		rec("moment.create", "req-1", `{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`),
		Record{Op: "moment.edit", At: at, Data: json.RawMessage(`{"caption":"é \u2028"}`)})
	if err != nil {
		t.Fatal(err)
	}
	got2, err := l.Append(context.Background(), rec("phrase.keep", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{Seq: 1, At: fixedNow, Op: "moment.create", RequestID: "req-1", Data: json.RawMessage(`{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`)},
		{Seq: 2, At: at.UTC(), Op: "moment.edit", Data: json.RawMessage(`{"caption":"é \u2028"}`)},
		{Seq: 3, At: fixedNow, Op: "phrase.keep"},
	}
	if diff := cmp.Diff(want, append(got1, got2...)); diff != "" {
		t.Errorf("Append returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, scanAll(t, l, 0)); diff != "" {
		t.Errorf("Scan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], scanAll(t, l, 1)); diff != "" {
		t.Errorf("Scan after 1 (-want +got):\n%s", diff)
	}
	if got := scanAll(t, l, 3); len(got) != 0 {
		t.Errorf("Scan after the last seq gave %d records", len(got))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l2 := openLog(t, path, testOptions(t))
	if got := l2.LastSeq(); got != 3 {
		t.Fatalf("LastSeq after reopen = %d, want 3", got)
	}
	if diff := cmp.Diff(want, scanAll(t, l2, 0)); diff != "" {
		t.Errorf("Scan after reopen (-want +got):\n%s", diff)
	}
	got4, err := l2.Append(context.Background(), rec("turn.start", "t", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if got4[0].Seq != 4 {
		t.Errorf("first seq after reopen = %d, want 4", got4[0].Seq)
	}
	n, last, err := Verify(context.Background(), path)
	if err != nil || n != 4 || last != 4 {
		t.Errorf("Verify = %d, %d, %v; want 4, 4, nil", n, last, err)
	}
}

// TestLog_Author: a record's author is logged and read back, after a
// reopen too; a record without one is written as before authors existed.
func TestLog_Author(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, testOptions(t))
	withAuthor := rec("moment.create", "req-1", `{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`)
	withAuthor.Author = "Dad's laptop"
	if _, err := l.Append(context.Background(), withAuthor, rec("moment.edit", "", `{}`)); err != nil {
		t.Fatal(err)
	}
	long := rec("a", "", "")
	long.Author = strings.Repeat("x", MaxAuthorLen+1)
	if _, err := l.Append(context.Background(), long); !errors.Is(err, ErrInvalid) {
		t.Errorf("Append with a %d-byte author: %v; want ErrInvalid", len(long.Author), err)
	}
	l.Close()
	l2 := openLog(t, path, testOptions(t))
	got := scanAll(t, l2, 0)
	if len(got) != 2 || got[0].Author != "Dad's laptop" || got[1].Author != "" {
		t.Fatalf("records read back: %+v", got)
	}
	plain := rec("moment.edit", "", `{}`)
	plain.Seq, plain.At = 2, got[1].At
	if b := appendRecord(nil, &plain, false); !bytes.Equal(b, appendRecord(nil, &got[1], false)) || binary.BigEndian.Uint32(b[4:8])&flagAuthor != 0 {
		t.Error("a record without an author is not encoded as before")
	}
}

// TestLog_Member: a record's member is logged and read back, after a
// reopen too, only when it is not its author; a record whose member is its
// author (or that has none) is written as before members existed.
func TestLog_Member(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, testOptions(t))
	forDad := rec("moment.create", "req-1", `{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`)
	forDad.Author, forDad.Member = "me", "dad"
	own := rec("moment.edit", "", `{}`)
	own.Author, own.Member = "mum", "mum"
	desktop := rec("moment.edit", "", `{}`)
	desktop.Author, desktop.Member = "dad-desktop", "dad"
	if _, err := l.Append(context.Background(), forDad, own, desktop); err != nil {
		t.Fatal(err)
	}
	long := rec("a", "", "")
	long.Author, long.Member = "me", strings.Repeat("x", MaxMemberLen+1)
	if _, err := l.Append(context.Background(), long); !errors.Is(err, ErrInvalid) {
		t.Errorf("Append with a %d-byte member: %v; want ErrInvalid", len(long.Member), err)
	}
	l.Close()
	l2 := openLog(t, path, testOptions(t))
	got := scanAll(t, l2, 0)
	if len(got) != 3 {
		t.Fatalf("records read back: %+v", got)
	}
	for i, want := range [][2]string{{"dad", "dad"}, {"", "mum"}, {"dad", "dad"}} {
		if got[i].Member != want[0] || got[i].MemberOf() != want[1] {
			t.Errorf("record %d: Member %q, MemberOf %q; want %q, %q", i+1, got[i].Member, got[i].MemberOf(), want[0], want[1])
		}
	}
	plain := rec("moment.edit", "", `{}`)
	plain.Seq, plain.At, plain.Author = 2, got[1].At, "mum"
	own.Seq, own.At = plain.Seq, plain.At
	if b := appendRecord(nil, &plain, false); !bytes.Equal(b, appendRecord(nil, &own, false)) || binary.BigEndian.Uint32(b[4:8])&flagMember != 0 {
		t.Error("a record whose member is its author is not encoded as before members")
	}
	// The decoder refuses what the encoder never writes: a member that is
	// the author.
	same := forDad
	same.Member = "xy" // as long as the author's name
	b := bytes.Replace(appendRecord(nil, &same, false), []byte("\x02me\x02xy"), []byte("\x02me\x02me"), 1)
	crc := crc32.Update(0, castagnoli, b[:8])
	crc = crc32.Update(crc, castagnoli, b[headerSize:])
	binary.BigEndian.PutUint32(b[8:12], crc)
	if _, _, _, err := decodeRecord(b); err == nil || !strings.Contains(err.Error(), "member is the author") {
		t.Errorf("decodeRecord of a member equal to its author: %v; want refused", err)
	}
}

func TestLog_ScanAfter(t *testing.T) {
	// Enough records for several marks of the sparse index, some of them
	// written before a reopen (marks built by recover) and some after
	// (marks built by commit).
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, testOptions(t))
	const half = markEvery*2 + 10
	recs := make([]Record, half)
	for i := range recs {
		recs[i] = rec("moment.create", "", `{"n":1}`)
	}
	if _, err := l.Append(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l = openLog(t, path, testOptions(t))
	if _, err := l.Append(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}
	total := uint64(2 * half)
	for _, after := range []uint64{0, 1, markEvery - 1, markEvery, markEvery + 1, half, half + 1, 3 * markEvery, total - 1, total, total + 5} {
		got := scanAll(t, l, after)
		wantN := 0
		if after < total {
			wantN = int(total - after)
		}
		if len(got) != wantN {
			t.Fatalf("Scan(%d) gave %d records, want %d", after, len(got), wantN)
		}
		for i, r := range got {
			if r.Seq != after+1+uint64(i) {
				t.Fatalf("Scan(%d): record %d has seq %d", after, i, r.Seq)
			}
		}
	}
}

func TestLog_ScanStops(t *testing.T) {
	l := openLog(t, filepath.Join(t.TempDir(), "ops.log"), testOptions(t))
	if _, err := l.Append(context.Background(), rec("a", "", ""), rec("b", "", ""), rec("c", "", "")); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	var n int
	err := l.Scan(context.Background(), 0, func(Record) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("Scan = %v after %d records; want the callback's error after 2", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Scan(ctx, 0, func(Record) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Scan with a canceled context = %v, want context.Canceled", err)
	}
}

func TestLog_AppendInvalid(t *testing.T) {
	l := openLog(t, filepath.Join(t.TempDir(), "ops.log"), testOptions(t))
	tests := []struct {
		name string
		rec  Record
	}{
		{"EmptyOp", rec("", "", "")},
		{"OpTooLong", rec(strings.Repeat("a", MaxOpLen+1), "", "")},
		{"OpBadChar", rec("moment create", "", "")},
		{"RequestIDTooLong", rec("a", strings.Repeat("r", MaxRequestIDLen+1), "")},
		{"RequestIDBadUTF8", rec("a", "\xff", "")},
		{"DataNotJSON", rec("a", "", "{")},
		{"TimeOutOfRange", Record{Op: "a", At: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"TooLarge", Record{Op: "a", Data: json.RawMessage(`"` + strings.Repeat("x", MaxRecordSize) + `"`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := l.Append(context.Background(), rec("ok", "", ""), tt.rec)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Append = %v, want ErrInvalid", err)
			}
		})
	}
	if got := l.LastSeq(); got != 0 {
		t.Errorf("LastSeq = %d after only invalid appends, want 0", got)
	}
}

func TestLog_AppendCanceled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, testOptions(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Append(ctx, rec("a", "", "")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Append with a canceled context = %v, want context.Canceled", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Fatalf("log after a canceled append: %v, %v; want an empty file", fi, err)
	}
	// A writer whose context ends while it waits behind a slow batch gets
	// ctx's error and nothing of it is written.
	release := make(chan struct{})
	opts := testOptions(t)
	var applied []uint64
	var amu sync.Mutex
	opts.Stage = foldWith(func(b []Record) error {
		if b[0].Op == "slow" {
			<-release
		}
		amu.Lock()
		for _, r := range b {
			applied = append(applied, r.Seq)
		}
		amu.Unlock()
		return nil
	})
	path2 := filepath.Join(t.TempDir(), "ops.log")
	l2 := openLog(t, path2, opts)
	slowDone := make(chan error, 1)
	go func() {
		_, err := l2.Append(context.Background(), rec("slow", "", ""))
		slowDone <- err
	}()
	for fileSize(t, path2) == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	_, err := l2.Append(ctx2, rec("late", "", ""))
	close(release)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Append while the committer is busy, deadline passed = %v, want DeadlineExceeded", err)
	}
	if err := <-slowDone; err != nil {
		t.Fatal(err)
	}
	got, err := l2.Append(context.Background(), rec("next", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Seq != 2 {
		t.Errorf("seq after a canceled append = %d, want 2", got[0].Seq)
	}
	if diff := cmp.Diff([]uint64{1, 2}, applied); diff != "" {
		t.Errorf("applied seqs (-want +got):\n%s", diff)
	}
}

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

func TestLog_ConcurrentAppendsShareFsyncs(t *testing.T) {
	const writers, each = 32, 20
	var (
		mu              sync.Mutex
		batches, onRecs int
		applied         []uint64
		first           = true
	)
	opts := testOptions(t)
	opts.OnBatch = func(n int, d time.Duration) {
		mu.Lock()
		batches++
		onRecs += n
		mu.Unlock()
	}
	opts.Stage = foldWith(func(b []Record) error {
		mu.Lock()
		slow := first
		first = false
		for _, r := range b {
			applied = append(applied, r.Seq)
		}
		mu.Unlock()
		if slow {
			// Hold the first batch so that the other writers queue up
			// behind it and must share the next fsync.
			time.Sleep(50 * time.Millisecond)
		}
		return nil
	})
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, opts)
	var wg sync.WaitGroup
	seqs := make(chan uint64, writers*each*2)
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				got, err := l.Append(context.Background(), rec("moment.create", "", `{"w":1}`), rec("media.put", "", `{"i":2}`))
				if err != nil {
					errs <- err
					return
				}
				if got[1].Seq != got[0].Seq+1 {
					errs <- errors.New("the records of one Append did not get consecutive seqs")
					return
				}
				seqs <- got[0].Seq
				seqs <- got[1].Seq
				_ = w + i
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(seqs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for s := range seqs {
		if seen[s] {
			t.Fatalf("seq %d returned twice", s)
		}
		seen[s] = true
	}
	const total = writers * each * 2
	if len(seen) != total || l.LastSeq() != total {
		t.Fatalf("got %d distinct seqs, LastSeq %d; want %d", len(seen), l.LastSeq(), total)
	}
	for i, s := range applied {
		if s != uint64(i+1) {
			t.Fatalf("Stage saw seq %d at position %d; batches must be applied in seq order", s, i)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if onRecs != total {
		t.Errorf("OnBatch counted %d records, want %d", onRecs, total)
	}
	if batches >= writers*each {
		t.Errorf("%d fsync batches for %d appends; concurrent appends must share fsyncs", batches, writers*each)
	}
	t.Logf("%d appends by %d writers in %d fsync batches", writers*each, writers, batches)
	if n, last, err := Verify(context.Background(), path); err != nil || n != total || last != total {
		t.Errorf("Verify = %d, %d, %v", n, last, err)
	}
}

func TestLog_Close(t *testing.T) {
	l := openLog(t, filepath.Join(t.TempDir(), "ops.log"), testOptions(t))
	if _, err := l.Append(context.Background(), rec("a", "", "")); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, err := l.Append(context.Background(), rec("a", "", "")); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := l.Scan(context.Background(), 0, func(Record) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Scan after Close = %v, want ErrClosed", err)
	}
	if err := l.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close = %v, want ErrClosed", err)
	}
}

func TestOpen_Errors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing", "ops.log"), testOptions(t)); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Open in a missing directory = %v, want an error naming it", err)
	}
	if _, err := Open(dir, testOptions(t)); err == nil {
		t.Error("Open of a directory succeeded")
	}
}

// capture is a slog handler that keeps log lines, to assert on warnings.
func capture() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&lockedWriter{w: &buf}, nil)), &buf
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
