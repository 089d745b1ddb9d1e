package push_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
)

// TestPush_KeepsDatesAndAuthors (issue 35): a move there and back keeps
// every moment's created_at, taken_at and author, and its caption's
// alternatives with when and where they were written. Seen before: a walk of
// the window moved 32 moments to the family engine and every one said it
// was added at the time of the move.
func TestPush_KeepsDatesAndAuthors(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	// The source's moments were added over the spring of 2025, by three
	// members, long before the move.
	var clock time.Time
	home := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		c.Now = func() time.Time { return clock }
	}))
	members := []string{"dad", "mum", "pippa-fan"}
	c := clientOf(home)
	for i := range n {
		clock = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * 97 * time.Minute)
		id := ulid.Make().String()
		req := api.CreateMomentRequest{ID: id, ClientRequestID: "c-" + id, Kind: api.KindNote, Caption: fmt.Sprintf("note %d", i)}
		if i%3 != 0 {
			taken := clock.Add(-time.Duration(i) * time.Hour)
			req.TakenAt = &taken
		}
		ctx := client.WithMember(t.Context(), members[i%len(members)])
		if _, _, err := c.CreateMoment(ctx, req); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			// Captions typed on two computers from the one it had: the
			// first kept beside the second, with when and where.
			for k, by := range []string{"dads-laptop", "dads-desktop"} {
				caption, written := fmt.Sprintf("note %d, from %s", i, by), clock.Add(-time.Duration(k+1)*time.Minute)
				edit := api.EditMomentRequest{Caption: &caption, BaseCaption: &req.Caption, WrittenAt: &written, WrittenBy: by, ClientRequestID: fmt.Sprintf("e-%s-%d", id, k)}
				if _, _, err := c.EditMoment(ctx, id, edit); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	want := datesOf(t, home)
	if len(want) != n {
		t.Fatalf("the source lists %d moments, want %d", len(want), n)
	}

	// There: to the family engine. And back: to a fresh engine on this
	// computer, from the family engine's log.
	family := enginetest.Start(t, enginetest.WithoutSeat())
	if st, err := push.Run(t.Context(), push.Options{Source: home.Dir, Target: clientOf(family), Logger: quiet()}); err != nil || !st.Complete {
		t.Fatalf("the move there: %v, %+v", err, st)
	}
	back := enginetest.Start(t, enginetest.WithoutSeat())
	if st, err := push.Run(t.Context(), push.Options{Source: family.Dir, Target: clientOf(back), Logger: quiet()}); err != nil || !st.Complete {
		t.Fatalf("the move back: %v, %+v", err, st)
	}
	// The engine moved back to, its mirror rebuilt from its log (the
	// creates folded in runs, not one by one).
	back.Close()
	if err := engine.Rebuild(t.Context(), back.Dir, quiet()); err != nil {
		t.Fatal(err)
	}
	rebuilt := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(back.Dir))
	for _, e := range []struct {
		name string
		eng  *enginetest.Engine
	}{{"the family engine", family}, {"the engine moved back to, rebuilt", rebuilt}} {
		got := datesOf(t, e.eng)
		bad := 0
		for id, w := range want {
			if g := got[id]; g != w {
				if bad < 3 {
					t.Errorf("%s: moment %s is %s; on the source %s", e.name, id, g, w)
				}
				bad++
			}
		}
		if bad > 0 || len(got) != len(want) {
			t.Errorf("%s: %d of %d moments differ in when they were added, taken or by whom (%d listed)", e.name, bad, n, len(got))
		}
	}
}

// datesOf lists, by id, each live moment's created_at, taken_at and
// member, as the engine answers them.
func datesOf(t *testing.T, e *enginetest.Engine) map[string]string {
	t.Helper()
	c := clientOf(e)
	out := map[string]string{}
	before := ""
	for {
		ms, next, err := c.Moments(t.Context(), 200, before)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			taken := "none"
			if m.TakenAt != nil {
				taken = m.TakenAt.UTC().Format(time.RFC3339Nano)
			}
			out[m.ID] = fmt.Sprintf("added %s taken %s by %s, %q", m.CreatedAt.UTC().Format(time.RFC3339Nano), taken, m.Member, m.Caption)
			for _, a := range m.Alternatives {
				out[m.ID] += fmt.Sprintf(" also %q at %s on %s", a.Caption, a.WrittenAt.UTC().Format(time.RFC3339Nano), a.WrittenBy)
			}
		}
		if next == nil {
			return out
		}
		before = *next
	}
}

// TestPush_Restore: a moment deleted and restored on the source is live
// on the target, restored once; one deleted and not restored is deleted.
func TestPush_Restore(t *testing.T) {
	src := enginetest.Start(t, enginetest.WithoutSeat())
	c := clientOf(src)
	back, gone, edited := ulid.Make().String(), ulid.Make().String(), ulid.Make().String()
	for _, id := range []string{back, gone, edited} {
		if _, _, err := c.CreateMoment(t.Context(), api.CreateMomentRequest{ID: id, ClientRequestID: "c-" + id, Kind: api.KindNote, Caption: "note " + id}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteMoment(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := c.RestoreMoment(t.Context(), back); err != nil || !ok {
		t.Fatalf("restore on the source: %v, %v", ok, err)
	}
	// A caption typed on a moment deleted elsewhere brought it back.
	caption := "kept after all"
	if _, restored, err := c.EditMoment(t.Context(), edited, api.EditMomentRequest{Caption: &caption}); err != nil || !restored {
		t.Fatalf("an edit of a deleted moment on the source: %v, %v", restored, err)
	}
	dst := enginetest.Start(t, enginetest.WithoutSeat())
	if n, err := push.Missing(t.Context(), src.Dir, clientOf(dst)); err != nil || n != 2 {
		t.Fatalf("missing before the push: %d, %v; want the restored one and the edited one", n, err)
	}
	st, err := push.Run(t.Context(), push.Options{Source: src.Dir, Target: clientOf(dst), Logger: quiet()})
	if err != nil || !st.Complete || st.Kinds[push.KindRestore].Sent != 1 {
		t.Fatalf("push: %v, %+v", err, st)
	}
	if ms, _, err := clientOf(dst).DeletedMoments(t.Context(), 0, ""); err != nil || len(ms) != 1 || ms[0].ID != gone {
		t.Errorf("Recently deleted on the target = %v, %v; want the one not restored", ms, err)
	}
	for id, deleted := range map[string]bool{back: false, gone: true, edited: false} {
		m, err := clientOf(dst).Moment(t.Context(), id)
		if err != nil || (m.DeletedAt != nil) != deleted {
			t.Errorf("moment %s on the target = %+v, %v; want deleted %v", id, m, err, deleted)
		}
	}
}
