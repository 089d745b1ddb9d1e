package mirror

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// gone lists media_gone.
func gone(t *testing.T, m *DB) []string {
	t.Helper()
	var out []string
	if err := m.EachGone(context.Background(), func(sha string) error { out = append(out, sha); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// A purge removes a deleted moment for good: its caption, readings, words,
// alternatives and media records go, and the blobs no other record names
// are listed gone until a put stores the same bytes again. It does nothing
// to a live moment, and nothing after it brings the moment back. Folding
// the log again gives the same tables.
func TestFold_Purge(t *testing.T) {
	ctx := context.Background()
	const (
		momentB = "01J0000000000000000000001A"
		mediaB  = "01J0000000000000000000001B"
		mediaC  = "01J0000000000000000000001C"
		momentC = "01J0000000000000000000002A"
		mediaD  = "01J0000000000000000000002B"
	)
	shaA, shaB := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	base, other, mine := "a letter", "a letter from the bank", "the council letter"
	var log []oplog.Record
	add := func(op string, data any) {
		log = append(log, rec(t, uint64(len(log)+1), op, "", data))
	}
	add(api.OpMomentCreate, MomentCreate{ID: momentA, Kind: api.KindPhoto, Caption: base})
	add(api.OpMediaPut, MediaPut{ID: mediaA, MomentID: momentA, Role: api.RoleCopy, SHA256: shaA, Size: 3, ContentType: "image/jpeg"})
	add(api.OpMediaPut, MediaPut{ID: mediaC, MomentID: momentA, Role: api.RoleOriginal, SHA256: shaB, Size: 3, ContentType: "image/jpeg"})
	add(api.OpTurnStart, TurnStart{ID: "T1", MomentID: momentA, Mode: api.ModePractical})
	add(api.OpTurnFinish, TurnFinish{ID: "T1", Status: api.TurnFinished, Seat: "s", Text: "pay the water bill"})
	add(api.OpMomentWords, MomentWords{ID: momentA, Text: "RD/7731/Q water", Lang: "eng"})
	add(api.OpMomentEdit, MomentEdit{ID: momentA, Caption: &other, BaseCaption: &base})
	add(api.OpMomentEdit, MomentEdit{ID: momentA, Caption: &mine, BaseCaption: &base})
	add(api.OpPhraseKeep, PhraseKeep{ID: "keep:water", Text: "the water bill", MomentID: momentA})
	// Moment B shares A's original bytes; C's copy is A's copy.
	add(api.OpMomentCreate, MomentCreate{ID: momentB, Kind: api.KindPhoto})
	add(api.OpMediaPut, MediaPut{ID: mediaB, MomentID: momentB, Role: api.RoleCopy, SHA256: shaB, Size: 3, ContentType: "image/jpeg"})
	add(api.OpMomentCreate, MomentCreate{ID: momentC, Kind: api.KindPhoto})
	add(api.OpMomentPurge, MomentPurge{ID: momentC}) // live: nothing
	add(api.OpMomentDelete, MomentDelete{ID: momentA})
	add(api.OpMomentPurge, MomentPurge{ID: momentA})
	add(api.OpMomentPurge, MomentPurge{ID: momentA}) // again: nothing
	add(api.OpMomentEdit, MomentEdit{ID: momentA, Caption: &other})
	add(api.OpMomentRestore, MomentRestore{ID: momentA})
	add(api.OpMomentWords, MomentWords{ID: momentA, Text: "again", Lang: "eng"})

	m := openDB(t, filepath.Join(t.TempDir(), "mirror.db"))
	if err := m.Apply(ctx, log); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Moment(ctx, momentA); !errors.Is(err, ErrNotFound) {
		t.Errorf("Moment of a purged moment: %v, want ErrNotFound", err)
	}
	refs, err := m.MomentRefs(ctx, momentA)
	if err != nil || !refs.Purged || !refs.Deleted || refs.CopyID != "" || refs.OriginalID != "" {
		t.Errorf("MomentRefs of a purged moment = %+v, %v; want purged, deleted, naming no media", refs, err)
	}
	if c, err := m.Moment(ctx, momentC); err != nil || c.DeletedAt != nil {
		t.Errorf("a purge of a live moment changed it: %+v, %v", c, err)
	}
	if _, err := m.Media(ctx, mediaA); !errors.Is(err, ErrNotFound) {
		t.Errorf("the purged moment's copy record: %v, want ErrNotFound", err)
	}
	if b, err := m.Media(ctx, mediaB); err != nil || b.SHA256 != shaB {
		t.Errorf("another moment's record of the same bytes: %+v, %v; want kept", b, err)
	}
	if got := gone(t, m); !cmp.Equal(got, []string{shaA}) {
		t.Errorf("gone = %v, want only %s (the other bytes are still B's copy)", got, shaA)
	}
	if del, _, err := m.DeletedMoments(ctx, log[0].At.AddDate(-1, 0, 0), 10, ""); err != nil || len(del) != 0 {
		t.Errorf("Recently deleted = %+v, %v; want the purged moment gone from it", del, err)
	}
	for _, q := range []string{"council", "7731", "water", "bank"} {
		hits, err := m.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.MomentID == momentA && h.Source != "phrase" {
				t.Errorf("search %q finds the purged moment's %s", q, h.Source)
			}
		}
	}
	if p, err := m.Phrases(ctx); err != nil || len(p) != 1 {
		t.Errorf("phrases = %+v, %v; the phrase Dad kept stays", p, err)
	}
	var alts, words, turnText int
	if err := m.r.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM alternatives), (SELECT count(*) FROM words), (SELECT count(*) FROM turns WHERE text <> '')").Scan(&alts, &words, &turnText); err != nil {
		t.Fatal(err)
	}
	if alts+words+turnText != 0 {
		t.Errorf("after the purge: %d alternatives, %d words, %d readings with text; want none", alts, words, turnText)
	}

	// The same bytes put again for a new moment are no longer gone.
	more := []oplog.Record{
		rec(t, uint64(len(log)+1), api.OpMomentCreate, "", MomentCreate{ID: "01J0000000000000000000003A", Kind: api.KindPhoto}),
		rec(t, uint64(len(log)+2), api.OpMediaPut, "", MediaPut{ID: "01J0000000000000000000003B", MomentID: "01J0000000000000000000003A", Role: api.RoleCopy, SHA256: shaA, Size: 3, ContentType: "image/jpeg"}),
		rec(t, uint64(len(log)+3), api.OpMomentDelete, "", MomentDelete{ID: momentB}),
		rec(t, uint64(len(log)+4), api.OpMomentPurge, "", MomentPurge{ID: momentB}),
		rec(t, uint64(len(log)+5), api.OpMomentDelete, "", MomentDelete{ID: momentC}),
	}
	if err := m.Apply(ctx, more); err != nil {
		t.Fatal(err)
	}
	if got := gone(t, m); !cmp.Equal(got, []string{shaB}) {
		t.Errorf("gone after the bytes came back and B was purged = %v, want only %s", got, shaB)
	}
	if due, err := m.PurgeDue(ctx, more[4].At.Add(1), 10); err != nil || !cmp.Equal(due, []string{momentC}) {
		t.Errorf("PurgeDue = %v, %v; want only %s (deleted, not purged)", due, err, momentC)
	}
	if due, err := m.PurgeDue(ctx, more[4].At, 10); err != nil || len(due) != 0 {
		t.Errorf("PurgeDue before the delete = %v, %v; want none", due, err)
	}
	if g, err := m.Gone(ctx, shaB); err != nil || !g {
		t.Errorf("Gone(%s) = %v, %v", shaB, g, err)
	}

	// A rebuild, in batches of one, gives the same tables.
	all := append(append([]oplog.Record{}, log...), more...)
	r := openDB(t, filepath.Join(t.TempDir(), "rebuilt.db"))
	for _, x := range all {
		if err := r.Apply(ctx, []oplog.Record{x}); err != nil {
			t.Fatal(err)
		}
	}
	if diffs, err := Diff(ctx, r, m, 10); err != nil || len(diffs) != 0 {
		t.Errorf("a fold one op at a time differs: %v, %v", diffs, err)
	}
}
