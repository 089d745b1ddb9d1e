package engine

import (
	"context"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// TestEditMoment_Base: what an edit that knows its base does, step by
// step on one moment, with what the log gets.
func TestEditMoment_Base(t *testing.T) {
	e := openEngine(t, t.TempDir())
	ctx := ctxT(t)
	desktop := WithActor(ctx, Actor{Name: "desktop", Member: "dad"})
	laptop := WithActor(ctx, Actor{Name: "laptop", Member: "dad"})
	mo, _, err := e.CreateMoment(desktop, api.CreateMomentRequest{Kind: api.KindNote, Caption: "the letter", ClientRequestID: "a-create"})
	if err != nil {
		t.Fatal(err)
	}
	edits := func() int { return opCounts(t, e)[api.OpMomentEdit] }
	edit := func(ctx context.Context, req api.EditMomentRequest) *api.Moment {
		t.Helper()
		m, _, err := e.EditMoment(ctx, mo.ID, req)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	base := "the letter"
	if m := edit(desktop, api.EditMomentRequest{Caption: ptr("the bank letter"), BaseCaption: &base, ClientRequestID: "d1"}); m.Caption != "the bank letter" || len(m.Alternatives) != 0 {
		t.Fatalf("an edit from the caption there = %q %+v; want it applied, nothing kept beside", m.Caption, m.Alternatives)
	}
	future := time.Now().Add(time.Hour)
	m := edit(laptop, api.EditMomentRequest{Caption: ptr("the council letter"), BaseCaption: &base, WrittenAt: &future, WrittenBy: "someone else", ClientRequestID: "l1"})
	if m.Caption != "the council letter" || len(m.Alternatives) != 1 {
		t.Fatalf("a second edit from the same base = %q %+v; want it the caption and the first kept", m.Caption, m.Alternatives)
	}
	alt := m.Alternatives[0]
	if alt.Caption != "the bank letter" || alt.WrittenBy != "desktop" || alt.WrittenAt == nil || alt.WrittenAt.After(time.Now()) {
		t.Fatalf("the alternative = %+v; want the desktop's words, when and where written", alt)
	}
	// A repeat of the desktop's edit (a lost reply) changes nothing now.
	n := edits()
	if m := edit(desktop, api.EditMomentRequest{Caption: ptr("the bank letter"), BaseCaption: &base, ClientRequestID: "d1"}); m.Caption != "the council letter" || len(m.Alternatives) != 1 || edits() != n {
		t.Fatalf("a repeat of the first edit = %q %+v (%d edits more); want nothing changed", m.Caption, m.Alternatives, edits()-n)
	}
	// A device token's written_by is not taken: the laptop's caption,
	// once replaced, names the laptop.
	cur := "the council letter"
	m = edit(desktop, api.EditMomentRequest{Caption: ptr(alt.Caption), BaseCaption: &cur, ClientRequestID: "d2"}) // "Use this one"
	if m.Caption != "the bank letter" || len(m.Alternatives) != 0 {
		t.Fatalf("choosing the alternative = %q %+v; want it the caption, nothing beside", m.Caption, m.Alternatives)
	}
	m = edit(laptop, api.EditMomentRequest{Caption: ptr("the gas letter"), BaseCaption: &cur, ClientRequestID: "l2"})
	if len(m.Alternatives) != 1 || m.Alternatives[0].WrittenBy != "desktop" {
		t.Fatalf("alternatives = %+v; want the desktop's", m.Alternatives)
	}
	// Dismissed: set aside, once.
	n = edits()
	m = edit(desktop, api.EditMomentRequest{Dismiss: []string{m.Alternatives[0].ID}})
	if len(m.Alternatives) != 0 || edits() != n+1 {
		t.Fatalf("after dismiss: %+v, %d edits more", m.Alternatives, edits()-n)
	}
	if edit(desktop, api.EditMomentRequest{Dismiss: []string{"0123456789abcdef"}}); edits() != n+1 {
		t.Fatal("dismissing an alternative the moment does not keep wrote an op")
	}
	// A request id of another kind of write is refused.
	_, _, err = e.EditMoment(desktop, mo.ID, api.EditMomentRequest{Caption: ptr("x"), ClientRequestID: "a-create"})
	wantCode(t, err, api.CodeRequestIDReused)
}

// TestMaxWrittenByLen: an edit's written_by names a token, and is bounded
// as the log bounds a token's name.
func TestMaxWrittenByLen(t *testing.T) {
	if api.MaxWrittenByLen != oplog.MaxAuthorLen {
		t.Fatalf("api.MaxWrittenByLen = %d, oplog.MaxAuthorLen = %d; want the same", api.MaxWrittenByLen, oplog.MaxAuthorLen)
	}
}
