package oplog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/vfs/crashfs"
)

// FuzzDecodeRecord feeds arbitrary bytes to the decoder and to the stream
// reader of Open and Scan. Neither may panic, and both may accept only what
// the encoder produces: re-encoding an accepted record gives back exactly
// the bytes it was decoded from. Seeds are in testdata/fuzz/FuzzDecodeRecord.
func FuzzDecodeRecord(f *testing.F) {
	good, _ := encodeAll(seqRecs(1, 2)...)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(appendRecord(nil, &Record{Seq: 1, At: fixedNow, Op: "moment.create", RequestID: "r1", Author: "Dad's laptop", Data: []byte(`{"caption":"x"}`)}, false))
	f.Add(appendRecord(nil, &Record{Seq: 1, At: fixedNow, Op: "moment.create", RequestID: "r1", Author: "me", Member: "dad", Data: []byte(`{"caption":"x"}`)}, true))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, more, n, err := decodeRecord(b)
		if err == nil {
			if n < headerSize+minPayloadSize || n > len(b) {
				t.Fatalf("decodeRecord took %d of %d bytes", n, len(b))
			}
			if enc := appendRecord(nil, &r, more); !bytes.Equal(enc, b[:n]) {
				t.Fatalf("decodeRecord accepted bytes the encoder does not produce:\n in %x\nout %x", b[:n], enc)
			}
		}

		// The stream reader must agree with decodeRecord, record by record.
		rd := newReader(bytes.NewReader(b), 0, 0)
		rest := b
		for {
			rec, recMore, err := rd.next()
			if err == io.EOF {
				if len(rest) != 0 {
					t.Fatalf("reader stopped cleanly with %d bytes left", len(rest))
				}
				return
			}
			var bad *badRecord
			if err != nil {
				if !errors.As(err, &bad) {
					t.Fatalf("reader error %v is not a bad record", err)
				}
				if bad.off != int64(len(b)-len(rest)) {
					t.Fatalf("bad record at %d, reader was at %d", bad.off, len(b)-len(rest))
				}
				return
			}
			want, wantMore, n, err := decodeRecord(rest)
			if err != nil {
				t.Fatalf("reader accepted a record decodeRecord refuses: %v", err)
			}
			if wantMore != recMore {
				t.Fatalf("reader and decodeRecord differ on the group flag: %v, %v", recMore, wantMore)
			}
			if diff := cmp.Diff(want, rec); diff != "" {
				t.Fatalf("reader and decodeRecord differ (-decode +reader):\n%s", diff)
			}
			rest = rest[n:]
		}
	})
}

// FuzzRecordRoundTrip checks that every record Append would accept is
// decoded back to itself.
func FuzzRecordRoundTrip(f *testing.F) {
	f.Add(uint64(1), int64(0), "moment.create", "req-1", []byte(`{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`))
	f.Add(uint64(1<<63), int64(-1), "a", "", []byte(nil))
	f.Add(uint64(7), int64(1767225600000000000), "turn.finish", "job:0", []byte(` [1, "\u00e9"] `))
	f.Fuzz(func(t *testing.T, seq uint64, at int64, op, rid string, data []byte) {
		r := Record{Seq: seq, At: time.Unix(0, at).UTC(), Op: op, RequestID: rid}
		if len(data) > 0 {
			r.Data = json.RawMessage(data)
		}
		if validate(&r) != nil {
			return
		}
		more := seq%2 == 0
		b := appendRecord(nil, &r, more)
		got, gotMore, n, err := decodeRecord(b)
		if err != nil || n != len(b) || gotMore != more {
			t.Fatalf("decodeRecord of an encoded record = %d, %v, %v", n, gotMore, err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
		// The same record with an author (the request id's bytes, when
		// they make one).
		r.Author = rid
		if rid == "" || validate(&r) != nil {
			return
		}
		b = appendRecord(nil, &r, more)
		got, gotMore, n, err = decodeRecord(b)
		if err != nil || n != len(b) || gotMore != more {
			t.Fatalf("decodeRecord of an encoded record with an author = %d, %v, %v", n, gotMore, err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Fatalf("round trip with an author (-want +got):\n%s", diff)
		}
		// With a member too: the op's name's bytes, written only when
		// they are not the author's (a member equal to the author is the
		// same as none, and reads back as none).
		r.Member = op
		if validate(&r) != nil {
			return
		}
		b = appendRecord(nil, &r, more)
		got, gotMore, n, err = decodeRecord(b)
		if err != nil || n != len(b) || gotMore != more {
			t.Fatalf("decodeRecord of an encoded record with a member = %d, %v, %v", n, gotMore, err)
		}
		want := r
		if want.Member == want.Author {
			want.Member = ""
		}
		if diff := cmp.Diff(want, got); diff != "" || got.MemberOf() != r.MemberOf() {
			t.Fatalf("round trip with a member (-want +got):\n%s", diff)
		}
	})
}

// fuzzLog is a log of whole groups (sizes 1, 2, 3, 1) for FuzzOpen, with
// the end offset and last seq of each group.
func fuzzLog() (b []byte, ends []int64, seqs []uint64) {
	var recs []Record
	for i := uint64(1); i <= 7; i++ {
		recs = append(recs, Record{Seq: i, At: fixedNow, Op: "moment.create", RequestID: fmt.Sprint("r", i), Data: []byte(`{"caption":"a cat on the stairs"}`)})
	}
	sizes := []int{1, 2, 3, 1}
	b, _ = encodeGroups(recs, sizes...)
	var off int64
	var seq uint64
	i := 0
	for _, n := range sizes {
		for range n {
			off += int64(len(appendRecord(nil, &recs[i], false)))
			i++
		}
		seq += uint64(n)
		ends, seqs = append(ends, off), append(seqs, seq)
	}
	return b, ends, seqs
}

// FuzzOpen damages a log (keeps a prefix of it, adds bytes after, flips a
// byte) and opens it. Open must never panic, and:
//   - it fails only with a *CorruptError that is not a tail, and then
//     changes nothing;
//   - when it succeeds, the file is exactly its first Log.End bytes, what
//     was cut is saved beside it, whole, and nothing else was written;
//   - the whole groups of the undamaged prefix are never lost: with
//     KeepThrough at their last seq, whatever the damage; without, when
//     the damage is past them;
//   - a whole record whose length word alone was damaged is never cut as a
//     write cut short, whatever KeepThrough says (it may have been
//     answered at its fsync before the mirror folded it): Open fails;
//   - a read-only open agrees, and changes nothing;
//   - the log takes appends afterwards and verifies.
func FuzzOpen(f *testing.F) {
	good, _, _ := fuzzLog()
	f.Add(uint16(len(good)), []byte{}, uint16(0), byte(0), false)
	f.Add(uint16(len(good)-5), []byte{}, uint16(0), byte(0), true)
	f.Add(uint16(len(good)), make([]byte, 100), uint16(0), byte(0), true)
	f.Add(uint16(len(good)), []byte("garbage"), uint16(3), byte(0x40), false)
	f.Add(uint16(len(good)), []byte{}, uint16(len(good)-1), byte(0x7d), true)
	f.Add(uint16(100), []byte{0xF5, 'S', 'O', 'P', 0x80}, uint16(60), byte(1), false)
	// The last record's length word raised, so that it seems to run past
	// the end, with nothing, a write cut short or zeros after it, and the
	// mirror behind it (KeepThrough below it).
	last := len(good) - len(appendRecord(nil, &Record{Seq: 7, At: fixedNow, Op: "moment.create", RequestID: "r7", Data: []byte(`{"caption":"a cat on the stairs"}`)}, false))
	f.Add(uint16(len(good)), []byte{}, uint16(last+7), byte(0x04), false)
	f.Add(uint16(len(good)), []byte{0xF5, 'S', 'O'}, uint16(last+6), byte(0x01), false)
	f.Add(uint16(len(good)), make([]byte, 64), uint16(last+7), byte(0x30), false)
	f.Add(uint16(len(good)), []byte{}, uint16(last+4), byte(0x80), false)
	f.Fuzz(func(t *testing.T, keep uint16, tail []byte, flipAt uint16, flipXor byte, acked bool) {
		good, ends, seqs := fuzzLog()
		k := int64(keep) % int64(len(good)+1)
		file := append(append([]byte(nil), good[:k]...), tail...)
		if flipXor != 0 && int(flipAt) < len(file) {
			file[flipAt] ^= flipXor
		}
		// The whole groups of the prefix kept.
		var wholeEnd int64
		var wholeSeq uint64
		for i, e := range ends {
			if e <= k {
				wholeEnd, wholeSeq = e, seqs[i]
			}
		}
		intact := flipXor == 0 || int64(flipAt) >= wholeEnd
		// Whether the flip is in the length word of a record that lies
		// whole in the file.
		lengthWord := false
		for off := 0; flipXor != 0 && off < len(good); {
			_, _, n, err := decodeRecord(good[off:])
			if err != nil {
				t.Fatal(err)
			}
			if int64(off+n) <= k && int(flipAt) >= off+4 && int(flipAt) < off+8 {
				lengthWord = true
			}
			off += n
		}
		dir := t.TempDir()
		// The simulated disk writes real files but skips the fsyncs, which
		// would make each run a hundred times slower.
		disk, err := crashfs.New(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Logger: quietLogger, FS: disk}
		if acked {
			opts.KeepThrough = wholeSeq
		}

		path := filepath.Join(dir, "ops.log")
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		roOpts := opts
		roOpts.ReadOnly = true
		ro, roErr := Open(path, roOpts)
		if roErr == nil {
			ro.Close()
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, file) {
			t.Fatal("a read-only Open changed the file")
		}

		l, err := Open(path, opts)
		if (err == nil) != (roErr == nil) {
			t.Fatalf("Open = %v but read-only Open = %v", err, roErr)
		}
		if lengthWord && err == nil {
			t.Fatalf("Open succeeded (seq %d, cut %+v) on a log with a whole record's length word damaged", l.LastSeq(), l.Cut())
		}
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Tail || ce.Path != path {
				t.Fatalf("Open = %v (%T), want a *CorruptError that is not a tail", err, err)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, file) {
				t.Fatal("a failed Open changed the file")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("a failed Open left files: %v", entries)
			}
			return
		}
		defer l.Close()
		end := int64(len(file))
		if c := l.Cut(); c != nil {
			end = c.Offset
		}
		if ro.LastSeq() != l.LastSeq() || (ro.Cut() == nil) != (l.Cut() == nil) {
			t.Fatalf("read-only Open saw seq %d cut %+v, Open saw seq %d cut %+v", ro.LastSeq(), ro.Cut(), l.LastSeq(), l.Cut())
		}
		b, _ := os.ReadFile(path)
		if !bytes.Equal(b, file[:end]) {
			t.Fatalf("the file after Open is not the first %d bytes of what it was", end)
		}
		entries, _ := os.ReadDir(dir)
		if c := l.Cut(); c != nil {
			saved, err := os.ReadFile(c.SavedTo)
			if err != nil || !bytes.Equal(saved, file[c.Offset:]) || c.Offset != end || len(entries) != 2 {
				t.Fatalf("cut %+v: saved %d bytes (%v), %d files", c, len(saved), err, len(entries))
			}
			if c.Seq <= opts.KeepThrough {
				t.Fatalf("cut seq %d, acknowledged through %d", c.Seq, opts.KeepThrough)
			}
		} else if len(entries) != 1 {
			t.Fatalf("nothing was cut but Open left files: %v", entries)
		}
		if (intact || acked) && l.LastSeq() < wholeSeq {
			t.Fatalf("Open kept seq %d of the whole groups through seq %d (intact %v, acked %v)", l.LastSeq(), wholeSeq, intact, acked)
		}
		if intact && l.LastSeq() >= wholeSeq && !bytes.Equal(b[:wholeEnd], good[:wholeEnd]) {
			t.Fatal("the whole groups kept are not the ones written")
		}
		if _, err := l.Append(context.Background(), Record{Op: "after", At: fixedNow}, Record{Op: "after", At: fixedNow}); err != nil {
			t.Fatalf("Append after Open: %v", err)
		}
		l.Close()
		if n, last, err := Verify(context.Background(), path); err != nil || last != uint64(n) {
			t.Fatalf("Verify after Open and Append = %d, %d, %v", n, last, err)
		}
	})
}
