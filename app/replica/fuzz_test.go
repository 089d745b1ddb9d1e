package replica

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/internal/hostile"
)

// FuzzOpsPage feeds any bytes, as the answer of GET /v1/ops, through what
// a sync does with a page before folding it: the client's decoder
// (client.DecodeOpsPage, as Client.Ops reads it) and records (seqs, and
// each op checked as the engine would). Nothing may panic, and what gets
// through must be a page the fold can take: seqs following on from after,
// no more ops than asked, each op one the engine would write.
func FuzzOpsPage(f *testing.F) {
	good := createOp(1, mirror.MomentCreate{ID: hostileMoment, Kind: api.KindNote, Caption: "tea"})
	next := uint64(1)
	f.Add(hostile.OpsJSON([]api.Op{good}, nil), uint64(0), 10)
	f.Add(hostile.OpsJSON([]api.Op{good}, &next), uint64(0), 1)
	f.Add(hostile.OpsJSON(nil, nil), uint64(5), 0)
	f.Add(hostile.OpsJSON([]api.Op{createOp(1, mirror.MomentCreate{ID: "../../etc/passwd", Kind: "evil"})}, nil), uint64(0), 10)
	f.Add([]byte(`{"ops":[{"seq":1,"at":"2026-01-01T00:00:00Z","op":"turn.start","data":{"id":"t","moment_id":"`+hostileMoment+`","mode":"practical"}},`+
		`{"seq":2,"at":"2026-01-01T00:00:00Z","op":"turn.finish","data":{"id":"t","status":"finished","text":"hi"}}],"next":2}`), uint64(0), 2)
	f.Add([]byte(`{"ops":[{"seq":3,"op":"phrase.keep","client_request_id":"r/1","data":{"id":"keep:tea","text":"Tea"}}],"next":null}`), uint64(2), 1)
	f.Add([]byte(`{"ops":[{"seq":18446744073709551615,"op":"moment.delete","data":{}}],"next":0}`), uint64(0), 1000)
	f.Add([]byte(`{"ops":[`+strings.Repeat(`{"seq":1},`, 50)+`{}]}`), uint64(0), 3)
	f.Add([]byte(`{"ops":null,"next":"x"}`), uint64(0), 0)
	f.Fuzz(func(t *testing.T, b []byte, after uint64, limit int) {
		page, err := client.DecodeOpsPage(bytes.NewReader(b), after, limit)
		if err != nil {
			return
		}
		if limit > 0 && limit <= api.MaxOpsLimit && len(page.Ops) > limit {
			t.Fatalf("a page of %d ops got through, asked for %d", len(page.Ops), limit)
		}
		recs, err := records(page.Ops, after)
		if err != nil {
			if !errors.Is(err, ErrBadPage) {
				t.Fatalf("records = %v, want ErrBadPage", err)
			}
			return
		}
		for i, r := range recs {
			if r.Seq != after+1+uint64(i) {
				t.Fatalf("record %d has seq %d after %d", i, r.Seq, after)
			}
			if err := mirror.CheckRecord(r); err != nil {
				t.Fatalf("record %d got through but %v", i, err)
			}
			if strings.ContainsAny(fmt.Sprint(r.RequestID), "/\\") {
				t.Fatalf("a request id with a path separator got through: %q", r.RequestID)
			}
		}
	})
}
