package oplog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// encodeAll encodes records as the log would write them.
func encodeAll(recs ...Record) ([]byte, []int64) {
	var b []byte
	var offs []int64
	for i := range recs {
		offs = append(offs, int64(len(b)))
		b = appendRecord(b, &recs[i], false)
	}
	return b, offs
}

func seqRecs(seqs ...uint64) []Record {
	var out []Record
	for _, s := range seqs {
		out = append(out, Record{Seq: s, At: fixedNow, Op: "moment.create", RequestID: "r", Data: []byte(`{"caption":"a cat"}`)})
	}
	return out
}

func writeFile(tb testing.TB, b []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "ops.log")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// encodeGroups encodes records as the log writes them, in groups of the
// given sizes (one Append each), and returns the offset of every record.
func encodeGroups(recs []Record, sizes ...int) ([]byte, []int64) {
	var b []byte
	var offs []int64
	i := 0
	for _, n := range sizes {
		for j := range n {
			offs = append(offs, int64(len(b)))
			b = appendRecord(b, &recs[i], j < n-1)
			i++
		}
	}
	return b, offs
}

// wantCut checks that Open cut the file at path to off, saved what it cut
// in <path>.cut-<off> and warned about it.
func wantCut(tb testing.TB, l *Log, path string, file []byte, off int64, logs string) {
	tb.Helper()
	c := l.Cut()
	if c == nil || c.Offset != off || c.Bytes != int64(len(file))-off {
		tb.Fatalf("Cut() = %+v, want %d bytes cut at %d", c, int64(len(file))-off, off)
	}
	if got := fileSize(tb, path); got != off {
		tb.Errorf("file size after Open = %d, want %d", got, off)
	}
	wantSaved := fmt.Sprintf("%s.cut-%d", path, off)
	if c.SavedTo != wantSaved {
		tb.Errorf("saved to %q, want %q", c.SavedTo, wantSaved)
	}
	saved, err := os.ReadFile(wantSaved)
	if err != nil || !bytes.Equal(saved, file[off:]) {
		tb.Errorf("the saved bytes = %q, %v; want the %d bytes cut", saved, err, len(file[off:]))
	}
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "cut short") || !strings.Contains(logs, wantSaved) {
		tb.Errorf("no warning naming the saved file was logged: %q", logs)
	}
}

func TestOpen_CutShort(t *testing.T) {
	full, offs := encodeAll(seqRecs(1, 2, 3)...)
	last := offs[2]
	// Cut the last record at every byte offset inside it.
	for cut := last + 1; cut < int64(len(full)); cut++ {
		path := writeFile(t, full[:cut])
		n, lastSeq, err := Verify(context.Background(), path)
		var ce *CorruptError
		if !errors.As(err, &ce) || !ce.Tail || ce.Offset != last || n != 2 || lastSeq != 2 {
			t.Fatalf("cut at %d: Verify = %d, %d, %v; want 2, 2, a write cut short at %d", cut, n, lastSeq, err, last)
		}
		ro, err := Open(path, Options{ReadOnly: true, Logger: quietLogger})
		if err != nil || ro.LastSeq() != 2 || ro.Cut() == nil || ro.Cut().Offset != last || ro.Cut().SavedTo != "" || fileSize(t, path) != cut {
			t.Fatalf("cut at %d: read-only Open = %v, %+v; want seq 2 and the tail left in place", cut, err, ro)
		}
		if _, err := ro.Append(context.Background(), rec("x", "", "")); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Append on a read-only log = %v", err)
		}
		ro.Close()
		logger, logs := capture()
		l, err := Open(path, Options{Logger: logger, KeepThrough: 2})
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		if got := l.LastSeq(); got != 2 {
			t.Errorf("cut at %d: LastSeq = %d, want 2", cut, got)
		}
		wantCut(t, l, path, full[:cut], last, logs.String())
		got, err := l.Append(context.Background(), rec("after.crash", "", ""))
		if err != nil || got[0].Seq != 3 {
			t.Errorf("cut at %d: Append after recovery = %v, %v; want seq 3", cut, got, err)
		}
		l.Close()
		if n, _, err := Verify(context.Background(), path); err != nil || n != 3 {
			t.Errorf("cut at %d: Verify after recovery = %d, %v", cut, n, err)
		}
	}
}

// TestOpen_CutShortKinds: what a write cut short leaves is cut; a bad
// record that lies wholly in the written bytes is corruption, even last.
func TestOpen_CutShortKinds(t *testing.T) {
	full, offs := encodeAll(seqRecs(1, 2)...)
	end := int64(len(full))
	flip := func(at int64) []byte {
		b := append([]byte(nil), full...)
		b[at] ^= 0x40
		return b
	}
	zeroFrom := func(at int64) []byte {
		b := append([]byte(nil), full...)
		clear(b[at:])
		return b
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name    string
		file    []byte
		cutAt   int64 // -1: corruption at corrupt
		corrupt int64
		reason  string
	}{
		{"ZerosAfterLast", cat(full, make([]byte, 4096)), end, 0, ""},
		{"ShortGarbageAfterLast", cat(full, []byte("garbage")), end, 0, ""},
		{"ShortHeaderAfterLast", cat(full, magic[:3]), end, 0, ""},
		{"LastRecordsEndZeroed", zeroFrom(end - 9), offs[1], 0, ""},
		{"LastRecordsPayloadZeroed", zeroFrom(offs[1] + headerSize), offs[1], 0, ""},
		{"LastRecordAllZero", zeroFrom(offs[1]), offs[1], 0, ""},
		{"BadChecksumInLastPayload", flip(end - 2), -1, offs[1], "checksum"},
		{"BadMagicOfLast", flip(offs[1]), -1, offs[1], "magic"},
		{"LongGarbageAfterLast", cat(full, []byte("this is not a record at all")), -1, end, "magic"},
		{"LengthOfMiddleRunsPastTheEnd", func() []byte {
			three, offs3 := encodeAll(seqRecs(1, 2, 3)...)
			b := append([]byte(nil), three...)
			b[offs3[1]+5] = 0x10 // about a megabyte
			return b
		}(), -1, offs[1], "whole records follow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			logger, logs := capture()
			l, err := Open(path, Options{Logger: logger})
			if tt.cutAt < 0 {
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Tail || ce.Offset != tt.corrupt || !strings.Contains(ce.Reason, tt.reason) {
					if err == nil {
						l.Close()
					}
					t.Fatalf("Open = %v; want corruption at %d mentioning %q", err, tt.corrupt, tt.reason)
				}
				if got := fileSize(t, path); got != int64(len(tt.file)) {
					t.Errorf("Open changed a corrupt file: size %d, was %d", got, len(tt.file))
				}
				if m, _ := filepath.Glob(path + ".cut-*"); len(m) != 0 {
					t.Errorf("Open saved a cut of a corrupt file: %v", m)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer l.Close()
			wantCut(t, l, path, tt.file, tt.cutAt, logs.String())
		})
	}
}

// TestOpen_Groups: the records of one Append are all there after a crash,
// or none of them.
func TestOpen_Groups(t *testing.T) {
	recs := seqRecs(1, 2, 3, 4, 5, 6)
	full, offs := encodeGroups(recs, 1, 2, 3) // seqs 1 | 2 3 | 4 5 6
	groupStart := map[int64]uint64{0: 0, offs[1]: 1, offs[3]: 3}
	for cut := int64(1); cut <= int64(len(full)); cut++ {
		// The whole groups before cut stay; the rest goes.
		var wantEnd int64
		var wantSeq uint64
		for off, seq := range groupStart {
			_ = seq
			if off <= cut && off > wantEnd {
				wantEnd = off
			}
		}
		if cut == int64(len(full)) {
			wantEnd = cut
		}
		switch wantEnd {
		case 0:
			wantSeq = 0
		case offs[1]:
			wantSeq = 1
		case offs[3]:
			wantSeq = 3
		default:
			wantSeq = 6
		}
		path := writeFile(t, full[:cut])
		logger, logs := capture()
		l, err := Open(path, Options{Logger: logger})
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		if l.LastSeq() != wantSeq {
			t.Fatalf("cut at %d: LastSeq = %d, want %d (whole groups only)", cut, l.LastSeq(), wantSeq)
		}
		if wantEnd != cut {
			wantCut(t, l, path, full[:cut], wantEnd, logs.String())
		} else if l.Cut() != nil {
			t.Errorf("cut at %d, a group boundary: Cut() = %+v", cut, l.Cut())
		}
		got := scanAll(t, l, 0)
		if len(got) != int(wantSeq) {
			t.Errorf("cut at %d: Scan gave %d records, want %d", cut, len(got), wantSeq)
		}
		l.Close()
	}
}

// TestOpen_KeepThrough: a tail that would hold an op known acknowledged is
// never cut, whatever it looks like.
func TestOpen_KeepThrough(t *testing.T) {
	recs := seqRecs(1, 2, 3)
	full, offs := encodeGroups(recs, 1, 2)
	tests := []struct {
		name string
		file []byte
		keep uint64
		ok   bool
	}{
		{"CutShortBeyondAcked", full[:len(full)-3], 1, true},
		{"CutShortAcked", full[:len(full)-3], 2, false},
		{"GroupHalfThereAcked", full[:offs[2]], 2, false},
		{"ZeroedAcked", append(append([]byte(nil), full[:offs[1]]...), make([]byte, len(full)-int(offs[1]))...), 3, false},
		{"WholeAcked", full, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			l, err := Open(path, Options{Logger: quietLogger, KeepThrough: tt.keep})
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				l.Close()
				return
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Tail || !strings.Contains(err.Error(), "acknowledged") {
				if err == nil {
					l.Close()
				}
				t.Fatalf("Open = %v; want a refusal to cut acknowledged ops", err)
			}
			if got := fileSize(t, path); got != int64(len(tt.file)) {
				t.Errorf("Open changed the file: size %d, was %d", got, len(tt.file))
			}
		})
	}
}

// TestOpen_CutSavedTwice: a second cut at the same offset does not replace
// the first one's copy.
func TestOpen_CutSavedTwice(t *testing.T) {
	full, offs := encodeAll(seqRecs(1, 2)...)
	path := writeFile(t, full[:len(full)-1])
	for i, want := range []string{".cut-" + fmt.Sprint(offs[1]), ".cut-" + fmt.Sprint(offs[1]) + "-2"} {
		if i == 1 {
			if err := os.WriteFile(path, full[:len(full)-2], 0o600); err != nil {
				t.Fatal(err)
			}
		}
		l, err := Open(path, Options{Logger: quietLogger})
		if err != nil {
			t.Fatal(err)
		}
		if l.Cut() == nil || l.Cut().SavedTo != path+want {
			t.Errorf("cut %d saved to %+v, want %s", i, l.Cut(), path+want)
		}
		l.Close()
	}
	first, _ := os.ReadFile(path + ".cut-" + fmt.Sprint(offs[1]))
	if !bytes.Equal(first, full[offs[1]:len(full)-1]) {
		t.Errorf("the first cut's copy was changed")
	}
}

// TestOpen_LogOfMain opens a log written by the engine before records had
// group marks (main at 877598e, testdata/v1-main.log): every record is
// there, each a group of one, and new appends go after them.
func TestOpen_LogOfMain(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "v1-main.log"))
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, b)
	l := openLog(t, path, testOptions(t))
	if l.LastSeq() != 15 || l.Cut() != nil {
		t.Fatalf("LastSeq = %d, Cut = %+v; want 15 records and nothing cut", l.LastSeq(), l.Cut())
	}
	got := scanAll(t, l, 0)
	var ops []string
	for _, r := range got {
		ops = append(ops, r.Op)
	}
	want := "moment.create media.put moment.create turn.start turn.finish turn.start turn.start turn.finish turn.finish phrase.keep phrase.keep phrase.keep moment.create turn.start turn.finish"
	if strings.Join(ops, " ") != want {
		t.Errorf("ops = %s\nwant %s", strings.Join(ops, " "), want)
	}
	if _, err := l.Append(context.Background(), rec("a", "", ""), rec("b", "", "")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	n, last, err := Verify(context.Background(), path)
	if err != nil || n != 17 || last != 17 {
		t.Fatalf("Verify after appending a group = %d, %d, %v", n, last, err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after[:len(b)], b) {
		t.Errorf("the old records changed")
	}
}

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestOpen_Corrupt(t *testing.T) {
	three, offs := encodeAll(seqRecs(1, 2, 3)...)
	flip := func(at int64) []byte {
		b := append([]byte(nil), three...)
		b[at] ^= 0x01
		return b
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	gap, gapOffs := encodeAll(seqRecs(1, 3)...)
	repeat, repOffs := encodeAll(seqRecs(1, 2, 2)...)
	zero, _ := encodeAll(seqRecs(0)...)
	grouped, groupedOffs := encodeGroups(seqRecs(1, 2, 3), 1, 2)
	grouped[groupedOffs[2]+headerSize+20] ^= 1
	tests := []struct {
		name   string
		file   []byte
		offset int64
		reason string
	}{
		{"ChecksumInMiddle", flip(offs[1] + headerSize + 20), offs[1], "checksum"},
		{"MagicInMiddle", flip(offs[1] + 1), offs[1], "magic"},
		{"LengthInMiddle", flip(offs[1] + 7), offs[1], ""},
		{"HugeLengthInMiddle", func() []byte { b := append([]byte(nil), three...); b[4] = 0x01; b[5] = 0x80; return b }(), 0, "out of bounds"},
		{"UnknownFlag", func() []byte { b := append([]byte(nil), three...); b[offs[1]+4] |= 0x10; return b }(), offs[1], "unknown flags"},
		{"GroupOfTwoWithBadSecond", grouped, groupedOffs[2], "checksum"},
		{"FirstRecord", flip(headerSize + 3), 0, "checksum"},
		{"GarbageBetween", cat(three[:offs[1]], []byte("junk"), three[offs[1]:]), offs[1], "magic"},
		{"SeqGapAtTail", gap, gapOffs[1], "seq 3 follows seq 1"},
		{"SeqRepeatAtTail", repeat, repOffs[2], "seq 2 follows seq 2"},
		{"SeqZero", zero, 0, "seq 0 follows seq 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			l, err := Open(path, testOptions(t))
			if err == nil {
				l.Close()
				t.Fatal("Open succeeded on a corrupt log")
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open = %v (%T), want a *CorruptError", err, err)
			}
			if ce.Path != path || ce.Offset != tt.offset || ce.Tail {
				t.Errorf("CorruptError = %+v, want path %s, offset %d, not a tail", ce, path, tt.offset)
			}
			if !strings.Contains(ce.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", ce.Reason, tt.reason)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, "offset") {
				t.Errorf("error %q does not name the file and offset", msg)
			}
			if got := fileSize(t, path); got != int64(len(tt.file)) {
				t.Errorf("Open changed a corrupt file: size %d, was %d", got, len(tt.file))
			}
			if _, _, err := Verify(context.Background(), path); !errors.As(err, &ce) || ce.Offset != tt.offset {
				t.Errorf("Verify = %v, want the same corruption", err)
			}
		})
	}
}

func TestOpen_FirstRecord(t *testing.T) {
	one, _ := encodeAll(seqRecs(1)...)
	tests := []struct {
		name    string
		file    []byte
		corrupt bool
	}{
		{"TornFirstAppend", one[:len(one)-3], false},
		{"MagicOnly", magic[:2], false},
		{"Zeros", make([]byte, 8192), false},
		{"NotALog", []byte("hello, this is somebody's notes file\n"), true},
		{"FirstRecordBadChecksum", append(append([]byte(nil), one[:len(one)-1]...), one[len(one)-1]^1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			l, err := Open(path, testOptions(t))
			if tt.corrupt {
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Offset != 0 || ce.Tail {
					t.Fatalf("Open = %v, want a *CorruptError at offset 0", err)
				}
				if tt.name == "NotALog" && !strings.Contains(err.Error(), "does not look like an op log") {
					t.Errorf("Open = %v, want it to say the file is not a log", err)
				}
				if got := fileSize(t, path); got != int64(len(tt.file)) {
					t.Errorf("Open cut a file that is not a log to %d bytes", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.LastSeq() != 0 || fileSize(t, path) != 0 {
				t.Errorf("LastSeq %d, size %d; want an empty log", l.LastSeq(), fileSize(t, path))
			}
		})
	}
}

func TestScan_FileDamagedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, testOptions(t))
	for range 3 {
		if _, err := l.Append(context.Background(), rec("a", "", `{"x":"0123456789"}`)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	err = l.Scan(context.Background(), 0, func(Record) error { return nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Scan of a damaged file = %v, want a *CorruptError", err)
	}
}

func TestVerify_Missing(t *testing.T) {
	_, _, err := Verify(context.Background(), filepath.Join(t.TempDir(), "nope.log"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Verify of a missing file = %v, want ErrNotExist", err)
	}
}

func TestRecord_AtRoundTrip(t *testing.T) {
	for _, at := range []time.Time{fixedNow, time.Unix(0, 0).UTC(), time.Unix(0, -1).UTC(), time.Date(2200, 1, 1, 0, 0, 0, 1, time.UTC)} {
		r := Record{Seq: 7, At: at, Op: "x"}
		b := appendRecord(nil, &r, false)
		got, _, n, err := decodeRecord(b)
		if err != nil || n != len(b) || !got.At.Equal(at) || got.At.Location() != time.UTC {
			t.Errorf("round trip of %v = %v, %d, %v", at, got.At, n, err)
		}
	}
}

// TestLog_AppendWritesGroups: one Append is one group in the file.
func TestLog_AppendWritesGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, testOptions(t))
	var all []Record
	for _, n := range []int{1, 3, 2} {
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = rec("moment.create", "r", `{"caption":"a cat"}`)
		}
		out, err := l.Append(context.Background(), recs...)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out...)
	}
	l.Close()
	want, _ := encodeGroups(all, 1, 3, 2)
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Fatalf("the file holds\n%x\nwant\n%x", got, want)
	}
}

// TestOpen_DamagedLastLengthWord: a flipped bit in the length word of the
// last whole record (or the last of a group) is corruption, never a write
// cut short, even when the mirror has not folded that record yet
// (KeepThrough below it: it may have been answered at its fsync). What
// follows the record (nothing, a write cut short, zeros, a few stray
// bytes) does not change that; a true write cut short after it is still
// cut.
// Records that name their author (the author flag in the length word)
// and their member (the member flag) are judged the same way.
func TestOpen_DamagedLastLengthWord(t *testing.T) {
	for _, who := range []struct{ author, member string }{{"", ""}, {"Dad's laptop", ""}, {"me", "dad"}} {
		t.Run(fmt.Sprintf("Author%qMember%q", who.author, who.member), func(t *testing.T) { testDamagedLastLengthWord(t, who.author, who.member) })
	}
}

func testDamagedLastLengthWord(t *testing.T, author, member string) {
	recs := seqRecs(1, 2, 3, 4)
	for i := range recs {
		recs[i].Author, recs[i].Member = author, member
	}
	recs[3].Data = []byte(`{"caption":"a cat"} ` + "\n") // JSON may end in white space
	full, offs := encodeGroups(recs, 1, 1, 2)            // seqs 1 | 2 | 3 4
	next := appendRecord(nil, &Record{Seq: 5, At: fixedNow, Op: "moment.create", Data: []byte(`{"caption":"the next"}`)}, false)
	afters := []struct {
		name string
		b    []byte
	}{
		{"AtTheEnd", nil},
		{"BeforeAWriteCutShort", next[:len(next)-4]},
		{"BeforeAHeaderCutShort", next[:5]},
		{"BeforeZeros", make([]byte, 300)},
		{"BeforeStrayBytes", []byte("xy")},
	}
	for _, target := range []struct {
		name string
		off  int64
		keep uint64
	}{
		{"LastOfAGroup", offs[3], 2},
		{"FirstOfTheLastGroup", offs[2], 2},
		{"LastOfOne", offs[1], 1},
	} {
		for _, after := range afters {
			for bit := range 32 {
				file := append(append([]byte(nil), full...), after.b...)
				if target.off == offs[1] {
					file = append(append([]byte(nil), full[:offs[2]]...), after.b...)
				}
				file[target.off+4+int64(3-bit/8)] ^= 1 << (bit % 8)
				name := fmt.Sprintf("%s/%s/bit%d", target.name, after.name, bit)
				path := writeFile(t, file)
				l, err := Open(path, Options{Logger: quietLogger, KeepThrough: target.keep})
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Tail || ce.Offset > target.off {
					if err == nil {
						t.Errorf("%s: Open succeeded with seq %d, cut %+v; want corruption at %d", name, l.LastSeq(), l.Cut(), target.off)
						l.Close()
						continue
					}
					t.Errorf("%s: Open = %v; want corruption at %d", name, err, target.off)
					continue
				}
				if got := fileSize(t, path); got != int64(len(file)) {
					t.Errorf("%s: Open changed the file: size %d, was %d", name, got, len(file))
				}
				if _, _, err := Verify(context.Background(), path); !errors.As(err, &ce) || ce.Tail {
					t.Errorf("%s: Verify = %v, want the same corruption", name, err)
				}
			}
		}
	}
	// Undamaged, the same files open and only the write cut short is cut.
	for _, after := range afters {
		file := append(append([]byte(nil), full...), after.b...)
		path := writeFile(t, file)
		l, err := Open(path, Options{Logger: quietLogger, KeepThrough: 4})
		if err != nil {
			t.Fatalf("%s undamaged: Open: %v", after.name, err)
		}
		if l.LastSeq() != 4 || (len(after.b) > 0) != (l.Cut() != nil) {
			t.Errorf("%s undamaged: seq %d, cut %+v", after.name, l.LastSeq(), l.Cut())
		}
		l.Close()
	}
}
