package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestOpen_MigratesV5ToBase opens testdata/outbox-v5, an outbox written by
// the outbox of d4ebb07 (schema version 5, before captions kept the
// caption they were written from), made by outbox-v4/gen.go.txt run at
// that commit: the same entries as outbox-v4, at version 5. Brought up to
// the newest version every entry reads as it did, its captions with no base (they
// go out as they would have: the caption replaced), and every entry goes
// out exactly once.
func TestOpen_MigratesV5ToBase(t *testing.T) {
	ctx := context.Background()
	f := openFixture(t, "outbox-v5", 5)
	m := f.migrate(t, []string{"queue"}, enginetest.WithoutSeat())
	o, eng := m.o, m.eng
	if v := userVersion(t, f.dir+"/outbox.db"); v != SchemaVersion {
		t.Errorf("user_version = %d; want SchemaVersion, %d", v, SchemaVersion)
	}
	kinds := []WriteKind{WriteNote, WriteCaption}
	m.checkReadsAsBefore(t, kinds, nil)
	for _, w := range m.kindWrites(t, kinds) {
		if w.Base != nil {
			t.Errorf("write %q of version 5 reads with base %q; want none", w.Text, *w.Base)
		}
	}
	o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
	o.EngineAnswered(eng.URL)
	runDrain(t, o)
	o.Kick()
	waitFor(t, 60*time.Second, "everything but the parked to go out", func() bool {
		db := o.db
		var n int
		if err := db.QueryRowContext(ctx, "UPDATE queue SET next_try = 0 WHERE state = 'pending' AND next_try > 0 RETURNING 1").Scan(&n); err == nil {
			o.Kick()
		}
		st, err := o.Status(ctx)
		return err == nil && st.Counts[KindPhoto].Parked == 1 && len(st.Photos) == 1 && len(st.Writes) == 0
	})
	if n, err := o.RetryAll(ctx); err != nil || n[KindPhoto] != 1 {
		t.Fatalf("RetryAll = %v, %v; want 1 photo", n, err)
	}
	m.checkSentOnce(t, map[string]int{api.OpMomentCreate: 2, api.OpTurnStart: 4, api.OpMomentEdit: 2}, 7)
}
