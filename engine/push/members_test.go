package push_test

import (
	"bytes"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/retry"
)

// twoMembers is a source engine where Dad (his laptop's token) and Mum
// each added a moment with a small copy and a reading, and kept a phrase.
func twoMembers(t *testing.T) (src *enginetest.Engine, dads, mums string) {
	t.Helper()
	src = enginetest.Start(t)
	ctx := t.Context()
	for _, who := range []struct{ name, member, caption string }{{"dad-laptop", "dad", "the boiler"}, {"mum", "mum", "the school trip"}} {
		c := client.New(src.URL, src.AddMemberToken(t, who.name, who.member, auth.ScopeDevice), src.Client())
		id := ulid.Make().String()
		if _, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ID: id, ClientRequestID: "cap-" + id, Kind: api.KindPhoto, Caption: who.caption}); err != nil {
			t.Fatal(err)
		}
		body := []byte(who.caption + " as a jpeg")
		sum := sha256.Sum256(body)
		if _, _, err := c.PutMedia(ctx, client.PutMedia{ID: ulid.Make().String(), MomentID: id, Role: api.RoleCopy, ContentType: "image/jpeg",
			Body: bytes.NewReader(body), Size: int64(len(body)), SHA256: sum[:]}); err != nil {
			t.Fatal(err)
		}
		tr, _, err := c.StartTurn(ctx, id, api.StartTurnRequest{ClientRequestID: "read-" + id, Mode: api.ModePractical})
		if err != nil {
			t.Fatal(err)
		}
		waitFinished(t, c, tr.ID)
		if _, _, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: "phrase of " + who.member, MomentID: id}); err != nil {
			t.Fatal(err)
		}
		if who.member == "dad" {
			dads = id
		} else {
			mums = id
		}
	}
	return src, dads, mums
}

// members returns the member of each moment of ids and of each kept
// phrase on e, read by its admin token.
func members(t *testing.T, e *enginetest.Engine, ids ...string) map[string]string {
	t.Helper()
	c := clientOf(e)
	out := map[string]string{}
	for _, id := range ids {
		m, err := c.Moment(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		out[m.Caption] = m.Member
		for _, tr := range m.Turns {
			out["reading of "+m.Caption] = memberOfTurn(t, e, tr.ID)
		}
	}
	ps, err := c.Phrases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		out[p.Text] = p.Member
	}
	return out
}

// memberOfTurn is the member of the op that started turn id on e.
func memberOfTurn(t *testing.T, e *enginetest.Engine, id string) string {
	t.Helper()
	ops, _, err := clientOf(e).Ops(t.Context(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Op == api.OpTurnStart && bytes.Contains(op.Data, []byte(`"`+id+`"`)) {
			return op.Member
		}
	}
	t.Fatalf("no turn.start of %s", id)
	return ""
}

// TestPush_KeepsMembers: a push (and so the window's Move) with the
// target's admin token keeps who added what: each moment, its reading
// and each kept phrase stays its member's on the target, where that
// member's own devices may then change it and another member's may not.
// With a device token of the target, everything becomes that device's
// member's: a device never writes as someone else. From a folder and from
// an engine read through the contract alike.
func TestPush_KeepsMembers(t *testing.T) {
	src, dads, mums := twoMembers(t)
	kept := map[string]string{"the boiler": "dad", "reading of the boiler": "dad", "phrase of dad": "dad",
		"the school trip": "mum", "reading of the school trip": "mum", "phrase of mum": "mum"}
	sources := map[string]func() push.Options{
		"Folder": func() push.Options { return push.Options{Source: src.Dir} },
		"Remote": func() push.Options {
			return push.Options{From: push.Remote(client.New(src.URL, src.Token, src.Client()), retry.Backoff{Base: time.Millisecond, Cap: 10 * time.Millisecond})}
		},
	}
	for name, source := range sources {
		t.Run(name+"/AdminToken", func(t *testing.T) {
			dst := enginetest.Start(t)
			opts := source()
			opts.Target, opts.Logger = clientOf(dst), quiet()
			if st, err := push.Run(t.Context(), opts); err != nil || !st.Complete {
				t.Fatalf("push: %v (%+v)", err, st)
			}
			if got := members(t, dst, dads, mums); !equalMaps(got, kept) {
				t.Errorf("members on the target = %v, want %v", got, kept)
			}
			desktop := client.New(dst.URL, dst.AddMemberToken(t, "dad-desktop", "dad", auth.ScopeDevice), dst.Client())
			caption := "the boiler, serviced"
			if _, _, err := desktop.EditMoment(t.Context(), dads, api.EditMomentRequest{Caption: &caption}); err != nil {
				t.Errorf("dad's desktop editing his moved moment: %v", err)
			}
			if _, _, err := desktop.EditMoment(t.Context(), mums, api.EditMomentRequest{Caption: &caption}); api.ErrorCode(err) != api.CodeForbidden {
				t.Errorf("dad's desktop editing mum's moved moment: %v; want forbidden", err)
			}
			closeAndFsck(t, dst)
		})
		t.Run(name+"/PushersOwn", func(t *testing.T) {
			// The app's Move: what the source wrote for a token rather than
			// a person (here "dad") goes as the target key's own member; the
			// other members stay theirs, even with an admin key.
			dst := enginetest.Start(t)
			opts := source()
			opts.Target = client.New(dst.URL, dst.AddMemberToken(t, "grans-admin", "gran", auth.ScopeAdmin), dst.Client())
			opts.PushersOwn = func(m string) bool { return m == "dad" }
			opts.Logger = quiet()
			if st, err := push.Run(t.Context(), opts); err != nil || !st.Complete {
				t.Fatalf("push: %v (%+v)", err, st)
			}
			want := map[string]string{}
			for k, m := range kept {
				if m == "dad" {
					m = "gran"
				}
				want[k] = m
			}
			if got := members(t, dst, dads, mums); !equalMaps(got, want) {
				t.Errorf("members on the target = %v, want %v", got, want)
			}
		})
		t.Run(name+"/DeviceToken", func(t *testing.T) {
			dst := enginetest.Start(t)
			opts := source()
			opts.Target = client.New(dst.URL, dst.AddMemberToken(t, "kitchen", "gran", auth.ScopeDevice), dst.Client())
			opts.Logger = quiet()
			if st, err := push.Run(t.Context(), opts); err != nil || !st.Complete {
				t.Fatalf("push: %v (%+v)", err, st)
			}
			want := map[string]string{}
			for k := range kept {
				want[k] = "gran"
			}
			if got := members(t, dst, dads, mums); !equalMaps(got, want) {
				t.Errorf("members on the target = %v, want %v", got, want)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
