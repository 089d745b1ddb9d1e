package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
)

func TestPushCmd(t *testing.T) {
	src := enginetest.Start(t)
	c := client.New(src.URL, src.Token, nil)
	m, _, err := c.CreateMoment(t.Context(), api.CreateMomentRequest{ID: "01JAAAAAAAAAAAAAAAAAAAAAAA", ClientRequestID: "cap-1", Kind: api.KindNote, Caption: "the boiler code"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.KeepPhrase(t.Context(), api.KeepPhraseRequest{Text: "Call the plumber", MomentID: m.ID}); err != nil {
		t.Fatal(err)
	}
	dst := enginetest.Start(t, enginetest.WithoutSeat())
	state := t.TempDir()
	args := []string{"push", "--data", src.Dir, "--to", dst.URL + "/", "--token", dst.Token, "--state", state, "--json"}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("push exit %d: %s", code, errOut.String())
	}
	var st push.Stats
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("--json output %q: %v", out.String(), err)
	}
	if !st.Complete || st.Kinds[push.KindMoment].Sent != 1 || st.Kinds[push.KindPhrase].Sent != 1 {
		t.Fatalf("summary %+v", st)
	}
	got, err := client.New(dst.URL, dst.Token, nil).Moment(t.Context(), m.ID)
	if err != nil || got.Caption != m.Caption {
		t.Fatalf("target's moment %+v, %v", got, err)
	}

	t.Run("From", func(t *testing.T) {
		// The same corpus read from the source engine's address lands on
		// a third engine, and a second run sends nothing.
		third := enginetest.Start(t, enginetest.WithoutSeat())
		args := []string{"push", "--from", src.URL, "--from-token", src.Token, "--to", third.URL, "--token", third.Token, "--state", state, "--json"}
		for i, want := range []int{1, 0} {
			var out, errOut bytes.Buffer
			if code := run(context.Background(), args, &out, &errOut); code != 0 {
				t.Fatalf("push --from, run %d: exit %d: %s", i, code, errOut.String())
			}
			var st push.Stats
			if err := json.Unmarshal(out.Bytes(), &st); err != nil {
				t.Fatalf("--json output %q: %v", out.String(), err)
			}
			if !st.Complete || st.Kinds[push.KindMoment].Sent != want || st.Kinds[push.KindPhrase].Sent != want {
				t.Fatalf("push --from, run %d: summary %+v", i, st)
			}
		}
		got, err := client.New(third.URL, third.Token, nil).Moment(t.Context(), m.ID)
		if err != nil || got.Caption != m.Caption {
			t.Fatalf("third engine's moment %+v, %v", got, err)
		}
	})
	t.Run("Usage", func(t *testing.T) {
		for _, a := range [][]string{{"push", "--data", src.Dir, "--token", "x"}, {"push", "--data", src.Dir, "--to", dst.URL},
			{"push", "--from", src.URL, "--to", dst.URL, "--token", "x"}, {"push", "--data", src.Dir, "--from", src.URL, "--from-token", "y", "--to", dst.URL, "--token", "x"}} {
			t.Setenv("SPARK_TOKEN", "")
			var o, e bytes.Buffer
			if code := run(context.Background(), a, &o, &e); code != 2 {
				t.Fatalf("%v: exit %d, want 2 (%s)", a, code, e.String())
			}
		}
	})
	t.Run("BadToken", func(t *testing.T) {
		var o, e bytes.Buffer
		code := run(context.Background(), []string{"push", "--data", src.Dir, "--to", dst.URL, "--token", "nope", "--state", state}, &o, &e)
		if code != 1 || !strings.Contains(e.String(), "token") {
			t.Fatalf("exit %d: %s", code, e.String())
		}
	})
}
