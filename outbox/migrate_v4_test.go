package outbox

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestOpen_MigratesV4ToWaitsForTheEngine opens testdata/outbox-v4, an
// outbox written by the outbox of 1d32306 (schema version 4, which kept
// no record of why an entry waits; gen.go.txt wrote it at that commit)
// beside the engine it was sending to: photos waiting at each of their
// four steps after a 503 with no Retry-After, one parked at its original,
// one delivered; a note and a caption waiting after the engine did not
// answer (connection refused: code "network"), a caption waiting after
// the engine asked for a wait (503, Retry-After an hour), a caption sent.
//
// Migration 5 marks a wait as one for an engine that did not answer
// where version 4's last code says so ("network"). A 502, 503 or 504 it
// cannot tell apart: version 4 did not keep whether a Retry-After came
// with it, and in the fixture the photos' 503s (none) and the asked
// caption's (an hour) read the same. Such waits are left to run out their
// back-off, as version 4 would have, rather than end a wait the engine
// asked for.
//
// Brought up to version 5, every entry reads as it did, and the two
// writes that waited for the engine read as waiting for it
// (awaits_engine); EngineAnswered(another engine) changes nothing, and
// EngineAnswered(the engine) makes them due at once and leaves every
// other wait as it was; then, against the fixture's engine, every entry
// goes out exactly once.
func TestOpen_MigratesV4ToWaitsForTheEngine(t *testing.T) {
	ctx := context.Background()
	f := openFixture(t, "outbox-v4", 4)
	offline := map[string]bool{} // the writes that waited for the engine
	for _, w := range f.before.Writes {
		if w["last_code"] == CodeNetwork {
			offline[w["id"].(string)] = true
		}
	}
	if len(offline) != 2 {
		t.Fatalf("the fixture has %d writes that waited for the engine; want 2", len(offline))
	}

	m := f.migrate(t, []string{"queue"}, enginetest.WithoutSeat())
	o, eng, before := m.o, m.eng, &f.before
	db, err := sql.Open("sqlite", filepath.Join(f.dir, "outbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := userVersion(t, filepath.Join(f.dir, "outbox.db")); v != SchemaVersion {
		t.Errorf("user_version = %d; want SchemaVersion, %d", v, SchemaVersion)
	}
	kinds := []WriteKind{WriteNote, WriteCaption}
	m.checkReadsAsBefore(t, kinds, func(w Write, _, want map[string]any) {
		if offline[w.ID] {
			// The one change: it waits for the engine to answer.
			want["awaits_engine"] = true
		}
	})
	rows, err := db.Query("SELECT id, unreachable FROM queue WHERE unreachable != 0")
	if err != nil {
		t.Fatal(err)
	}
	marked := map[string]bool{}
	for rows.Next() {
		var id string
		var u int
		if err := rows.Scan(&id, &u); err != nil {
			t.Fatal(err)
		}
		marked[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if !reflect.DeepEqual(marked, offline) {
		t.Errorf("the migration marks %v as waiting for the engine; want %v", marked, offline)
	}

	// The fixture's waits ended long ago: each is made to end an hour from
	// now, so that only EngineAnswered can make one due.
	later := time.Now().Add(time.Hour)
	if _, err := db.Exec("UPDATE queue SET next_try = ? WHERE state = 'pending' AND next_try > 0", later.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
	// An answer from another engine ends no wait.
	o.EngineAnswered(before.Target)
	for _, w := range m.kindWrites(t, kinds) {
		if offline[w.ID] && (w.NextTry == nil || !w.AwaitsEngine) {
			t.Errorf("write %q after another engine answered: next try %v, awaits the engine %v; want its wait kept", w.Text, w.NextTry, w.AwaitsEngine)
		}
	}
	o.EngineAnswered(eng.URL)
	for _, w := range m.kindWrites(t, kinds) {
		switch {
		case w.State != Pending:
		case offline[w.ID]:
			if w.NextTry != nil || w.AwaitsEngine {
				t.Errorf("write %q after EngineAnswered: next try %v, awaits the engine %v; want due at once", w.Text, w.NextTry, w.AwaitsEngine)
			}
		case w.NextTry == nil || w.NextTry.Before(later.Add(-time.Second)):
			t.Errorf("write %q after EngineAnswered: next try %v; want its wait (%v) kept", w.Text, w.NextTry, later)
		}
	}
	for _, e := range entries(t, o) {
		if e.State == Pending && (e.NextTry == nil || e.NextTry.Before(later.Add(-time.Second))) {
			t.Errorf("photo %s after EngineAnswered: next try %v; want its wait (%v) kept", e.Name, e.NextTry, later)
		}
	}

	// The drain runs: SetTarget asked it to try every waiting entry now
	// (a Kick), so everything but the parked goes; RetryAll sends that.
	runDrain(t, o)
	o.Kick()
	waitFor(t, 30*time.Second, "everything but the parked to go out", func() bool {
		st, err := o.Status(ctx)
		return err == nil && st.Counts[KindPhoto].Parked == 1 && len(st.Photos) == 1 && len(st.Writes) == 0
	})
	if n, err := o.RetryAll(ctx); err != nil || n[KindPhoto] != 1 {
		t.Fatalf("RetryAll = %v, %v; want 1 photo", n, err)
	}
	// Still to do when the fixture was written: p0's create and the
	// note's; the small copies of p0 and p1 and the originals of p0..p4;
	// the turns of p0, p1, p2 and the note; two captions.
	m.checkSentOnce(t, map[string]int{api.OpMomentCreate: 2, api.OpTurnStart: 4, api.OpMomentEdit: 2}, 7)
}
