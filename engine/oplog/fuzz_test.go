package oplog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeRecord feeds arbitrary bytes to the decoder and to the stream
// reader of Open and Scan. Neither may panic, and both may accept only what
// the encoder produces: re-encoding an accepted record gives back exactly
// the bytes it was decoded from. Seeds are in testdata/fuzz/FuzzDecodeRecord.
func FuzzDecodeRecord(f *testing.F) {
	good, _ := encodeAll(seqRecs(1, 2)...)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Fuzz(func(t *testing.T, b []byte) {
		r, n, err := decodeRecord(b)
		if err == nil {
			if n < headerSize+minPayloadSize || n > len(b) {
				t.Fatalf("decodeRecord took %d of %d bytes", n, len(b))
			}
			if enc := appendRecord(nil, &r); !bytes.Equal(enc, b[:n]) {
				t.Fatalf("decodeRecord accepted bytes the encoder does not produce:\n in %x\nout %x", b[:n], enc)
			}
		}

		// The stream reader must agree with decodeRecord, record by record.
		rd := newReader(bytes.NewReader(b), 0, 0)
		rest := b
		for {
			rec, err := rd.next()
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
			want, n, err := decodeRecord(rest)
			if err != nil {
				t.Fatalf("reader accepted a record decodeRecord refuses: %v", err)
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
		b := appendRecord(nil, &r)
		got, n, err := decodeRecord(b)
		if err != nil || n != len(b) {
			t.Fatalf("decodeRecord of an encoded record = %d, %v", n, err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
