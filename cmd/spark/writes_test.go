package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// TestSpark_Writes: 'spark outbox' lists the window's writes beside the
// photos, 'spark drain' sends them, parks the one the engine refuses, and
// 'spark retry' and 'spark discard' work on writes.
func TestSpark_Writes(t *testing.T) {
	eng := enginetest.Start(t)
	vars := map[string]string{"SPARK_ENGINE": eng.URL, "SPARK_TOKEN": eng.Token}
	data := t.TempDir()
	ctx := context.Background()
	o, err := outbox.Open(ctx, filepath.Join(data, "outbox"), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	note := ulid.Make().String()
	unknown := ulid.Make().String()
	var ids []string
	for _, w := range []outbox.Write{outbox.NewNote(note, "call the pharmacy"), outbox.NewCaption(unknown, "nobody", nil), outbox.NewDelete(unknown)} {
		got, err := o.AddWrite(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got.ID)
	}
	o.Close()

	code, out, errOut := spark(t, nil, "--data", data, "outbox")
	if code != 0 || !strings.Contains(out, `note "call the pharmacy"`) || !strings.Contains(out, "3 writes pending, 0 parked") {
		t.Fatalf("outbox = %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = spark(t, vars, "--data", data, "drain", "--for", "3s")
	if code != 1 || !strings.Contains(out, "sent "+ids[0]) || !strings.Contains(errOut, "parked "+ids[1]) {
		t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
	}
	var l struct {
		WriteCounts outbox.Counts  `json:"write_counts"`
		Writes      []outbox.Write `json:"writes"`
	}
	_, out, _ = spark(t, nil, "--data", data, "outbox", "--json")
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	// The caption of a moment the engine never saw is parked; the delete
	// of it waits behind it.
	if l.WriteCounts != (outbox.Counts{Pending: 1, Parked: 1, Done: 1}) || len(l.Writes) != 2 || l.Writes[0].ID != ids[1] || l.Writes[0].State != outbox.Parked {
		t.Fatalf("outbox --json writes = %+v %+v", l.WriteCounts, l.Writes)
	}
	if code, out, errOut := spark(t, nil, "--data", data, "retry", ids[1]); code != 0 || !strings.Contains(out, ids[1]+" back to pending") {
		t.Errorf("retry = %d %s %s", code, out, errOut)
	}
	for _, id := range ids[1:] {
		if code, out, errOut := spark(t, nil, "--data", data, "discard", id); code != 0 || !strings.Contains(out, "discarded "+id) {
			t.Errorf("discard = %d %s %s", code, out, errOut)
		}
	}
	if code, out, _ := spark(t, nil, "--data", data, "outbox"); code != 0 || strings.Contains(out, "WRITE") {
		t.Errorf("outbox after discards:\n%s", out)
	}
	if n := eng.OpCount(t, "moment.create"); n != 1 {
		t.Errorf("%d moment.create ops; want the note's one", n)
	}
}
