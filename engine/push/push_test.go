package push_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

// The child mode of the test binary: one push run, to be SIGKILLed.
func TestMain(m *testing.M) {
	if src := os.Getenv("SPARK_PUSH_CHILD_SRC"); src != "" {
		c := client.New(os.Getenv("SPARK_PUSH_CHILD_URL"), os.Getenv("SPARK_PUSH_CHILD_TOKEN"), nil)
		_, err := push.Run(context.Background(), push.Options{Source: src, Target: c, StateDir: os.Getenv("SPARK_PUSH_CHILD_STATE"),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), CheckpointEvery: 5 * time.Millisecond,
			Backoff: retry.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func clientOf(e *enginetest.Engine) *client.Client { return client.New(e.URL, e.Token, e.Client()) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fillSource writes a corpus through the contract on a real engine with a
// fake Pippa: moments with copies and originals, readings, a job, edits,
// deletes, phrases kept and removed, and a quick recall.
func fillSource(t *testing.T, e *enginetest.Engine, n int) {
	t.Helper()
	ctx := t.Context()
	c := clientOf(e)
	rnd := rand.New(rand.NewPCG(1, 2))
	var turns []string
	for i := range n {
		id := ulid.Make().String()
		taken := time.Date(2026, 3, 1+i%28, 10, i%60, 0, 0, time.UTC)
		if _, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ID: id, ClientRequestID: "cap-" + id, Kind: api.KindPhoto,
			Caption: fmt.Sprintf("moment %d", i), TakenAt: &taken}); err != nil {
			t.Fatal(err)
		}
		put := func(role string, size int) {
			b := make([]byte, size)
			for k := range b {
				b[k] = byte(rnd.UintN(256))
			}
			sum := sha256.Sum256(b)
			if _, _, err := c.PutMedia(ctx, client.PutMedia{ID: ulid.Make().String(), MomentID: id, Role: role, ContentType: "image/jpeg",
				Body: bytes.NewReader(b), Size: int64(len(b)), SHA256: sum[:]}); err != nil {
				t.Fatal(err)
			}
		}
		put(api.RoleCopy, 2000+i)
		if i%4 == 0 {
			put(api.RoleOriginal, 100_000+i)
		}
		tr, _, err := c.StartTurn(ctx, id, api.StartTurnRequest{ClientRequestID: "read-" + id, Mode: api.ModePractical})
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, tr.ID)
		if i%7 == 3 {
			caption := fmt.Sprintf("moment %d, edited", i)
			if _, _, err := c.EditMoment(ctx, id, api.EditMomentRequest{Caption: &caption}); err != nil {
				t.Fatal(err)
			}
		}
		if i%6 == 1 {
			if _, _, err := c.PutWords(ctx, id, api.Words{Text: fmt.Sprintf("Words in photo %d\nRef RD/%d/Q", i, 7700+i), Lang: "eng"}); err != nil {
				t.Fatal(err)
			}
		}
		if i%5 == 0 {
			if _, _, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: fmt.Sprintf("Phrase number %d", i), MomentID: id}); err != nil {
				t.Fatal(err)
			}
		}
		if i%10 == 5 {
			js, _, err := c.StartJob(ctx, id, "job-"+id)
			if err != nil {
				t.Fatal(err)
			}
			for _, jt := range js {
				turns = append(turns, jt.ID)
			}
		}
		if i%9 == 8 {
			if _, err := c.DeleteMoment(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := c.RemovePhrase(ctx, "keep:phrase number 0"); err != nil {
		t.Fatal(err)
	}
	_, rt, _, err := c.StartRecall(ctx, "recall-1")
	if err != nil {
		t.Fatal(err)
	}
	turns = append(turns, rt.ID)
	for _, id := range turns {
		waitFinished(t, c, id)
	}
}

func waitFinished(t *testing.T, c *client.Client, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tr, err := c.Turn(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Status == api.TurnFinished || tr.Status == api.TurnFailed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("turn %s still %s", id, tr.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// corpus is what a person can see of an engine: every moment (deleted ones
// too) with its media and readings, and the kept phrases.
func corpus(t *testing.T, c *client.Client, ids []string) string {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		m, err := c.Moment(t.Context(), id)
		if err != nil {
			t.Fatalf("moment %s: %v", id, err)
		}
		fmt.Fprintf(&b, "moment %s %s %q taken %v deleted %v\n", m.ID, m.Kind, m.Caption, m.TakenAt, m.DeletedAt != nil)
		for _, md := range []*api.Media{m.Copy, m.Original} {
			if md != nil {
				fmt.Fprintf(&b, "  media %s %s %s %d %s\n", md.ID, md.Role, md.SHA256, md.Size, md.ContentType)
			}
		}
		turns := slices.Clone(m.Turns)
		slices.SortFunc(turns, func(a, b api.Turn) int { return strings.Compare(a.ID, b.ID) })
		for _, tr := range turns {
			fmt.Fprintf(&b, "  turn %s %s %s %s req %q %q %q\n", tr.ID, tr.Mode, tr.Seat, tr.Status, tr.ClientRequestID, tr.Text, tr.Error)
		}
	}
	ps, err := c.Phrases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ps, func(a, b api.Phrase) int { return strings.Compare(a.ID, b.ID) })
	for _, p := range ps {
		fmt.Fprintf(&b, "phrase %s %q %s\n", p.ID, p.Text, p.MomentID)
	}
	return b.String()
}

// createdIDs lists the moments the log of e creates, in order.
func createdIDs(t *testing.T, c *client.Client) []string {
	t.Helper()
	var ids []string
	var after uint64
	for {
		ops, next, err := c.Ops(t.Context(), after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if op.Op == api.OpMomentCreate {
				var d struct {
					ID string `json:"id"`
				}
				if err := jsonUnmarshal(op.Data, &d); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, d.ID)
			}
		}
		if next == nil {
			return ids
		}
		after = *next
	}
}

func fsckOK(t *testing.T, dir string) {
	t.Helper()
	var out bytes.Buffer
	ok, err := engine.Fsck(t.Context(), dir, &out)
	if err != nil || !ok {
		t.Fatalf("fsck %s: ok %v err %v\n%s", dir, ok, err, out.String())
	}
}

// closeAndFsck stops the engines and checks that fsck finds their folders
// sound.
func closeAndFsck(t *testing.T, engines ...*enginetest.Engine) {
	t.Helper()
	for _, e := range engines {
		e.Close()
		fsckOK(t, e.Dir)
	}
}

// checkSame proves the target holds exactly the source's corpus, that each
// thing was written once, and that its Pippa was never asked.
func checkSame(t *testing.T, src, dst *enginetest.Engine) {
	t.Helper()
	ids := createdIDs(t, clientOf(src))
	// Moments go several at once, so the target's log may create them in
	// another order; each is created once.
	if got := createdIDs(t, clientOf(dst)); !slices.Equal(sorted(got), sorted(ids)) {
		t.Fatalf("target's log creates %d moments, source's %d (or others)", len(got), len(ids))
	}
	want, got := corpus(t, clientOf(src), ids), corpus(t, clientOf(dst), ids)
	if want != got {
		t.Fatalf("target differs from source:\n--- source\n%s\n--- target\n%s", want, got)
	}
	for _, op := range []string{api.OpMomentCreate, api.OpMediaPut, api.OpTurnStart, api.OpTurnFinish, api.OpMomentDelete} {
		if s, d := src.OpCount(t, op), dst.OpCount(t, op); s != d {
			t.Errorf("%s: source log has %d, target %d", op, s, d)
		}
	}
	if n := dst.Pippa.Calls(); n != 0 {
		t.Errorf("target's Pippa asked %d times, want 0", n)
	}
}

func TestPush_CopiesEverythingAndRepeatsNothing(t *testing.T) {
	src := enginetest.Start(t)
	fillSource(t, src, 30)
	dst := enginetest.Start(t)
	state := t.TempDir()
	// 30 moments and the recall's, 3 of them deleted.
	if n, err := push.Missing(t.Context(), src.Dir, clientOf(dst)); err != nil || n != 28 {
		t.Fatalf("missing before the push: %d, %v; want 28", n, err)
	}
	var progress int
	st, err := push.Run(t.Context(), push.Options{Source: src.Dir, Target: clientOf(dst), StateDir: state, Logger: quiet(),
		Progress: func(push.Stats) { progress++ }})
	if err != nil {
		t.Fatalf("push: %v (%+v)", err, st)
	}
	if !st.Complete || st.Kinds[push.KindMoment].Sent != 31 /* and the recall's */ || st.Kinds[push.KindReading].Refused != 0 || progress == 0 ||
		st.Kinds[push.KindWords].Sent != 5 {
		t.Fatalf("summary %+v, progress calls %d", st, progress)
	}
	checkSame(t, src, dst)
	if n, err := push.Missing(t.Context(), src.Dir, clientOf(dst)); err != nil || n != 0 {
		t.Fatalf("missing after the push: %d, %v", n, err)
	}

	// Run again: the checkpoint says all is there; nothing is sent.
	again, err := push.Run(t.Context(), push.Options{Source: src.Dir, Target: clientOf(dst), StateDir: state, Logger: quiet()})
	if err != nil || again.StartSeq != st.LastSeq || len(again.Kinds) > 1 {
		t.Fatalf("second run: %v, %+v", err, again)
	}
	// Without a checkpoint the whole log is replayed, and the target
	// still writes nothing new.
	full, err := push.Run(t.Context(), push.Options{Source: src.Dir, Target: clientOf(dst), Logger: quiet()})
	if err != nil || full.Kinds[push.KindMoment].Sent != 0 || full.Kinds[push.KindMedia].Sent != 0 || full.Kinds[push.KindReading].Sent != 0 {
		t.Fatalf("replay without checkpoint: %v, %+v", err, full)
	}
	checkSame(t, src, dst)
	closeAndFsck(t, src, dst)
}

// TestPush_Faults: a proxy losing replies and answering 503, pushes
// cancelled at random points and child processes SIGKILLed mid-run; a final
// run converges on exactly the source's corpus.
func TestPush_Faults(t *testing.T) {
	src := enginetest.Start(t)
	fillSource(t, src, 60)
	dst := enginetest.Start(t)
	proxy := newLossyProxy(t, dst.URL, 0.15, 3)
	state := t.TempDir()
	target := client.New(proxy.URL(), dst.Token, nil)
	fast := push.Options{Source: src.Dir, Target: target, StateDir: state, Logger: quiet(), Workers: 3, CheckpointEvery: 5 * time.Millisecond}
	fast.Backoff.Base, fast.Backoff.Cap = time.Millisecond, 20*time.Millisecond

	rnd := rand.New(rand.NewPCG(5, 6))
	for i := range 4 {
		// Cancelled at a random point.
		ctx, cancel := context.WithTimeout(t.Context(), time.Duration(5+rnd.IntN(60))*time.Millisecond)
		_, err := push.Run(ctx, fast)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled run %d: %v", i, err)
		}
		// Killed with SIGKILL at a random point.
		exe, _ := os.Executable()
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "SPARK_PUSH_CHILD_SRC="+src.Dir, "SPARK_PUSH_CHILD_URL="+proxy.URL(),
			"SPARK_PUSH_CHILD_TOKEN="+dst.Token, "SPARK_PUSH_CHILD_STATE="+state)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(200+rnd.IntN(600)) * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Logf("after kill %d: %s", i, checkpoints(t, state))
	}
	st, err := push.Run(t.Context(), fast)
	if err != nil {
		t.Fatalf("final run: %v (%+v)", err, st)
	}
	if proxy.lost.Load() == 0 || proxy.refused.Load() == 0 {
		t.Fatalf("the proxy lost %d replies and refused %d requests; the test proved nothing", proxy.lost.Load(), proxy.refused.Load())
	}
	t.Logf("replies lost %d, 503s %d, final run resumed after seq %d of %d, %d retries", proxy.lost.Load(), proxy.refused.Load(), st.StartSeq, st.LastSeq, st.Retries)
	checkSame(t, src, dst)
	closeAndFsck(t, src, dst)
}

// TestPush_Refusals: a target holding a different reading under the same
// turn id refuses it; the push says so and does not claim completion.
func TestPush_Refusals(t *testing.T) {
	src := enginetest.Start(t)
	fillSource(t, src, 6)
	dst := enginetest.Start(t, enginetest.WithoutSeat())
	_, err := push.Run(t.Context(), push.Options{Source: src.Dir, Target: client.New(dst.URL, "wrong-token", nil), Logger: quiet()})
	if err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("push with a bad token: %v", err)
	}
	// The target gets the first moment with another reading.
	ids := createdIDs(t, clientOf(src))
	m, err := clientOf(src).Moment(t.Context(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	c := clientOf(dst)
	if _, _, err := c.CreateMoment(t.Context(), api.CreateMomentRequest{ID: m.ID, ClientRequestID: "cap-" + m.ID, Kind: m.Kind, Caption: m.Caption, TakenAt: m.TakenAt}); err != nil {
		t.Fatal(err)
	}
	tr := m.Turns[0]
	if _, _, err := c.ImportTurn(t.Context(), api.ImportTurnRequest{ID: tr.ID, MomentID: m.ID, Mode: tr.Mode, Seat: tr.Seat,
		ClientRequestID: tr.ClientRequestID, Status: api.TurnFinished, Text: "another reading"}); err != nil {
		t.Fatal(err)
	}
	st, err := push.Run(t.Context(), push.Options{Source: src.Dir, Target: c, Logger: quiet()})
	if !errors.Is(err, push.ErrIncomplete) || st.Complete || st.Kinds[push.KindReading].Refused != 1 ||
		len(st.Refusals) != 1 || st.Refusals[0].ID != tr.ID || !strings.Contains(st.Refusals[0].Reason, "import_conflict") {
		t.Fatalf("push over a conflicting reading: %v, %+v", err, st)
	}
	if st.Kinds[push.KindMoment].Already != 1 {
		t.Fatalf("moment already there not counted: %+v", st.Kinds)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// checkpoints shows the checkpoint files of a state folder.
func checkpoints(t *testing.T, dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		c, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(bytes.TrimSpace(c))
	}
	return b.String()
}
