package oplog

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

func TestReader_Next(t *testing.T) {
	var log []byte
	recs := []Record{
		{Seq: 5, At: time.Unix(1, 0).UTC(), Op: "a.b", Data: []byte(`{"x":1}`)},
		{Seq: 6, At: time.Unix(2, 0).UTC(), Op: "a.c", RequestID: "r", Author: "dad", Data: []byte(`{}`)},
		{Seq: 7, At: time.Unix(3, 0).UTC(), Op: "a.d", Data: []byte(`{"y":2}`)},
	}
	var raws [][]byte
	for i := range recs {
		start := len(log)
		log = appendRecord(log, &recs[i], i == 0) // seqs 5 and 6 are a group
		raws = append(raws, log[start:])
	}
	t.Run("OK", func(t *testing.T) {
		rd := NewReader(bytes.NewReader(log), "seg", 4)
		for i, want := range recs {
			got, more, raw, err := rd.Next()
			if err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
			if got.Seq != want.Seq || got.Op != want.Op || got.Author != want.Author || more != (i == 0) {
				t.Errorf("record %d = %+v more %v, want %+v more %v", i, got, more, want, i == 0)
			}
			if !bytes.Equal(raw, raws[i]) {
				t.Errorf("record %d raw bytes differ from the log's", i)
			}
		}
		if _, _, _, err := rd.Next(); err != io.EOF {
			t.Fatalf("after the last record: %v, want io.EOF", err)
		}
		if rd.LastSeq() != 7 {
			t.Errorf("LastSeq = %d, want 7", rd.LastSeq())
		}
	})
	t.Run("ErrWrongSeq", func(t *testing.T) {
		_, _, _, err := NewReader(bytes.NewReader(log), "seg", 3).Next()
		var re *RecordError
		if !errors.As(err, &re) || re.Name != "seg" || re.Offset != 0 || re.Short || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want a RecordError naming seg at offset 0", err)
		}
	})
	t.Run("ErrFlippedByte", func(t *testing.T) {
		bad := bytes.Clone(log)
		bad[len(raws[0])+20] ^= 1
		rd := NewReader(bytes.NewReader(bad), "seg", 4)
		if _, _, _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := rd.Next()
		var re *RecordError
		if !errors.As(err, &re) || re.Offset != int64(len(raws[0])) || re.Short {
			t.Fatalf("err = %v, want a RecordError at offset %d", err, len(raws[0]))
		}
	})
	t.Run("ErrShort", func(t *testing.T) {
		rd := NewReader(bytes.NewReader(log[:len(log)-3]), "seg", 4)
		for range 2 {
			if _, _, _, err := rd.Next(); err != nil {
				t.Fatal(err)
			}
		}
		_, _, _, err := rd.Next()
		var re *RecordError
		if !errors.As(err, &re) || !re.Short || re.Offset != int64(len(raws[0])+len(raws[1])) {
			t.Fatalf("err = %v, want a short RecordError at the last record", err)
		}
	})
}
