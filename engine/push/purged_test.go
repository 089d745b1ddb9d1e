package push_test

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/retry"
)

// TestPush_Purged (issue 35): a moment the source removed for good (its
// photo gone, a reading and a kept phrase of it) is left out of a move
// whole, from a folder and from a remote engine alike: it does not come
// back on the target, not even in Recently deleted; the phrase kept from
// it is moved without it; the other moments, live and deleted, move as
// ever, and the push is complete. Before, a move stopped at the photo the
// source no longer held.
func TestPush_Purged(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	src := enginetest.Start(t, enginetest.WithConfig(func(c *engine.Config) {
		c.Now, c.UploadSweepEvery = clock, 20*time.Millisecond
	}))
	c := clientOf(src)
	ctx := t.Context()
	photo := func(id string, seed byte) {
		b := bytes.Repeat([]byte{seed, 0xd8, 0xff}, 700)
		sum := sha256.Sum256(b)
		if _, _, err := c.PutMedia(ctx, client.PutMedia{ID: ulid.Make().String(), MomentID: id, Role: api.RoleCopy, ContentType: "image/jpeg",
			Body: bytes.NewReader(b), Size: int64(len(b)), SHA256: sum[:]}); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]string{}
	for i, name := range []string{"purged", "live", "deleted"} {
		id := ulid.Make().String()
		ids[name] = id
		if _, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ID: id, ClientRequestID: "c-" + id, Kind: api.KindPhoto, Caption: name}); err != nil {
			t.Fatal(err)
		}
		photo(id, byte(i))
	}
	tr, _, err := c.StartTurn(ctx, ids["purged"], api.StartTurnRequest{ClientRequestID: "read-purged", Mode: api.ModePractical})
	if err != nil {
		t.Fatal(err)
	}
	for {
		tu, err := c.Turn(ctx, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if tu.FinishedAt != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, _, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: "call the water board", MomentID: ids["purged"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteMoment(ctx, ids["purged"]); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(31 * 24 * time.Hour)
	mu.Unlock()
	if _, err := c.DeleteMoment(ctx, ids["deleted"]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := c.Moment(ctx, ids["purged"])
		if api.ErrorCode(err) == api.CodeMomentPurged {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the moment deleted 31 days ago is not purged after 10 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	for _, from := range []string{"folder", "remote"} {
		t.Run(from, func(t *testing.T) {
			dst := enginetest.Start(t, enginetest.WithoutSeat())
			opts := push.Options{Source: src.Dir, Target: clientOf(dst), Logger: quiet()}
			if from == "remote" {
				opts.From = push.Remote(clientOf(src), retry.Backoff{Base: time.Millisecond, Cap: 10 * time.Millisecond})
			}
			st, err := push.Run(ctx, opts)
			if err != nil || !st.Complete || st.Purged != 1 {
				t.Fatalf("push: %v, %+v; want complete, one moment left out", err, st)
			}
			d := clientOf(dst)
			if _, err := d.Moment(ctx, ids["purged"]); api.ErrorCode(err) != api.CodeNotFound {
				t.Errorf("the purged moment on the target: %v; want it never made there", err)
			}
			if ms, _, err := d.DeletedMoments(ctx, 0, ""); err != nil || len(ms) != 1 || ms[0].ID != ids["deleted"] {
				t.Errorf("Recently deleted on the target = %v, %v; want only the moment deleted yesterday", ms, err)
			}
			if m, err := d.Moment(ctx, ids["live"]); err != nil || m.Copy == nil || m.DeletedAt != nil {
				t.Errorf("the live moment on the target = %+v, %v", m, err)
			}
			ps, err := d.Phrases(ctx)
			if err != nil || len(ps) != 1 || ps[0].Text != "call the water board" || ps[0].MomentID != "" {
				t.Errorf("phrases on the target = %+v, %v; want the kept phrase, without its moment", ps, err)
			}
		})
	}
}
