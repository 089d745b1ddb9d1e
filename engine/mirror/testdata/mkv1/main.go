// Writes a mirror of schema version 1 (the one of main before full-text
// search) by folding a fixed log, for engine/mirror's migration test.
// It made testdata/mirror-v1.db from a checkout of commit 877598e (copy
// this directory to cmd/mkv1 there):
//
//	go run ./cmd/mkv1 /tmp/v1.db && cp /tmp/v1.db engine/mirror/testdata/mirror-v1.db
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

func main() {
	ctx := context.Background()
	path := os.Args[1]
	m, err := mirror.Open(ctx, path, mirror.Options{})
	if err != nil {
		log.Fatal(err)
	}
	seq := uint64(0)
	var recs []oplog.Record
	add := func(op, rid string, data any) {
		seq++
		b, _ := json.Marshal(data)
		recs = append(recs, oplog.Record{Seq: seq, At: time.Date(2026, 6, 1, 12, 0, int(seq), 0, time.UTC), Op: op, RequestID: rid, Data: b})
	}
	taken := time.Date(2015, 6, 10, 10, 0, 0, 0, time.UTC)
	edited := "Letter about the new savings account"
	add(api.OpMomentCreate, "c1", mirror.MomentCreate{ID: "01J0000000000000000000000A", Kind: api.KindPhoto, Caption: "Letter from Barclays", TakenAt: &taken})
	add(api.OpMediaPut, "", mirror.MediaPut{ID: "01J0000000000000000000000B", MomentID: "01J0000000000000000000000A", Role: api.RoleCopy, SHA256: strings.Repeat("ab", 32), Size: 3, ContentType: "image/jpeg"})
	add(api.OpTurnStart, "t1", mirror.TurnStart{ID: "T1", MomentID: "01J0000000000000000000000A", Mode: api.ModePractical})
	add(api.OpTurnFinish, "", mirror.TurnFinish{ID: "T1", Status: api.TurnFinished, Seat: "pippa", Text: "The bank writes that the interest rate on your savings changes in July."})
	add(api.OpMomentEdit, "", mirror.MomentEdit{ID: "01J0000000000000000000000A", Caption: &edited})
	add(api.OpMomentCreate, "c2", mirror.MomentCreate{ID: "01J0000000000000000000000C", Kind: api.KindNote, Caption: "Call the pharmacy about the prescription"})
	add(api.OpMomentCreate, "c3", mirror.MomentCreate{ID: "01J0000000000000000000000D", Kind: api.KindPhoto, Caption: "Deleted zebra photo"})
	add(api.OpMomentDelete, "", mirror.MomentDelete{ID: "01J0000000000000000000000D"})
	add(api.OpPhraseKeep, "", mirror.PhraseKeep{ID: "keep:interest rate", Text: "interest rate", MomentID: "01J0000000000000000000000A"})
	add(api.OpPhraseKeep, "", mirror.PhraseKeep{ID: "keep:marmalade", Text: "marmalade"})
	add(api.OpTurnStart, "t2", mirror.TurnStart{ID: "T2", MomentID: "01J0000000000000000000000C", Mode: api.ModePractical})
	if err := m.Apply(ctx, recs); err != nil {
		log.Fatal(err)
	}
	if err := m.Checkpoint(ctx); err != nil {
		log.Fatal(err)
	}
	if err := m.Close(); err != nil {
		log.Fatal(err)
	}
}
