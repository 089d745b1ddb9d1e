package oplog

import (
	"context"
	"errors"
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
		b = appendRecord(b, &recs[i])
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

func TestOpen_TornTail(t *testing.T) {
	full, offs := encodeAll(seqRecs(1, 2, 3)...)
	last := offs[2]
	// Cut the last record at every byte offset inside it.
	for cut := last + 1; cut < int64(len(full)); cut++ {
		path := writeFile(t, full[:cut])
		n, lastSeq, err := Verify(context.Background(), path)
		var ce *CorruptError
		if !errors.As(err, &ce) || !ce.Tail || ce.Offset != last || n != 2 || lastSeq != 2 {
			t.Fatalf("cut at %d: Verify = %d, %d, %v; want 2, 2, a torn tail at %d", cut, n, lastSeq, err, last)
		}
		logger, logs := capture()
		l, err := Open(path, Options{Logger: logger})
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		if got := l.LastSeq(); got != 2 {
			t.Errorf("cut at %d: LastSeq = %d, want 2", cut, got)
		}
		if got := fileSize(t, path); got != last {
			t.Errorf("cut at %d: file size after Open = %d, want %d", cut, got, last)
		}
		if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "torn") {
			t.Errorf("cut at %d: no warning logged: %q", cut, logs.String())
		}
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

func TestOpen_TornTailKinds(t *testing.T) {
	full, offs := encodeAll(seqRecs(1, 2)...)
	flip := func(at int64) []byte {
		b := append([]byte(nil), full...)
		b[at] ^= 0x40
		return b
	}
	tests := []struct {
		name string
		file []byte
	}{
		{"BadChecksumInLastPayload", flip(int64(len(full)) - 2)},
		{"BadMagicOfLast", flip(offs[1])},
		{"ZerosAfterLast", append(append([]byte(nil), full...), make([]byte, 4096)...)},
		{"GarbageAfterLast", append(append([]byte(nil), full...), "garbage"...)},
		{"ShortHeaderAfterLast", append(append([]byte(nil), full...), magic[:3]...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			l, err := Open(path, testOptions(t))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer l.Close()
			want := uint64(2)
			if strings.Contains(tt.name, "OfLast") || strings.Contains(tt.name, "InLast") {
				want = 1
			}
			if got := l.LastSeq(); got != want {
				t.Errorf("LastSeq = %d, want %d", got, want)
			}
		})
	}
}

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
	tests := []struct {
		name   string
		file   []byte
		offset int64
		reason string
	}{
		{"ChecksumInMiddle", flip(offs[1] + headerSize + 20), offs[1], "checksum"},
		{"MagicInMiddle", flip(offs[1] + 1), offs[1], "magic"},
		{"LengthInMiddle", flip(offs[1] + 7), offs[1], ""},
		{"HugeLengthInMiddle", func() []byte { b := append([]byte(nil), three...); b[4] = 0xff; return b }(), 0, "out of bounds"},
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
		{"FirstRecordBadChecksum", append(append([]byte(nil), one[:len(one)-1]...), one[len(one)-1]^1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			l, err := Open(path, testOptions(t))
			if tt.corrupt {
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Offset != 0 || ce.Tail || !strings.Contains(err.Error(), "does not look like an op log") {
					t.Fatalf("Open = %v, want a *CorruptError saying it is not a log", err)
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
		b := appendRecord(nil, &r)
		got, n, err := decodeRecord(b)
		if err != nil || n != len(b) || !got.At.Equal(at) || got.At.Location() != time.UTC {
			t.Errorf("round trip of %v = %v, %d, %v", at, got.At, n, err)
		}
	}
}
