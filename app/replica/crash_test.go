package replica

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// notes writes n note moments straight into the engine, with a phrase kept
// from every tenth, from a few writers at once (their ops share fsyncs).
func notes(tb testing.TB, eng *enginetest.Engine, n int, tag string) {
	tb.Helper()
	ctx := ctxT(tb)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n; i += 4 {
				m, _, err := eng.Engine.CreateMoment(ctx, api.CreateMomentRequest{
					ClientRequestID: fmt.Sprintf("%s-%d", tag, i), Kind: api.KindNote,
					Caption: fmt.Sprintf("%s note %d, long enough to look like a caption Dad would write", tag, i),
				})
				if err == nil && i%10 == 0 {
					_, _, err = eng.Engine.KeepPhrase(ctx, api.KeepPhraseRequest{Text: fmt.Sprintf("%s phrase %d", tag, i), MomentID: m.ID})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

const helperEnv = "REPLICA_TEST_HELPER"

// TestHelperProcess is the child of TestCrash_Sync: it syncs, small pages
// at a time, until it is killed.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "sync" {
		t.Skip("the child of TestCrash_Sync")
	}
	ctx := context.Background()
	r, err := Open(ctx, os.Getenv("REPLICA_DIR"), Options{PageLimit: 25, Logger: quiet})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	eng := &urlEngine{url: os.Getenv("REPLICA_URL"), token: os.Getenv("REPLICA_TOKEN")}
	for {
		if _, err := r.Sync(ctx, eng.client()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
	}
}

// killedExitCode is what ProcessState.ExitCode says of a child this test
// killed: -1 (killed by a signal) on Unix; on Windows Process.Kill is
// TerminateProcess with exit code 1, on real Windows as under Wine. The
// child's own failures exit 3 or 4.
func killedExitCode() int {
	if runtime.GOOS == "windows" {
		return 1
	}
	return -1
}

// TestCrash_Sync kills a syncing process (SIGKILL) at random points, most
// of them inside a page's fold, then checks that the replica opens, never
// goes back, and ends equal to the engine's mirror.
func TestCrash_Sync(t *testing.T) {
	// -short (the Wine run) keeps the kills, with a shorter log and fewer
	// rounds: the point there is Windows' files after a kill.
	first, rounds := 1500, 6
	if testing.Short() {
		first, rounds = 500, 4
	}
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	notes(t, eng, first, "a")
	dir := filepath.Join(t.TempDir(), "replica")
	rng := rand.New(rand.NewPCG(7, 8))
	var last uint64
	kills := 0
	for round := range rounds {
		if round == rounds/2 {
			notes(t, eng, 500, "b") // more to pull after some kills
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), helperEnv+"=sync", "REPLICA_DIR="+dir, "REPLICA_URL="+eng.URL, "REPLICA_TOKEN="+eng.Token)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(200+rng.IntN(600)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != killedExitCode() {
			t.Fatalf("round %d: the child exited by itself (%v) before it was killed", round, err)
		}
		kills++
		r, err := Open(ctxT(t), dir, Options{Logger: quiet})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		st, err := r.State(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if st.Seq < last {
			t.Fatalf("round %d: the replica went back from seq %d to %d", round, last, st.Seq)
		}
		t.Logf("round %d: killed at seq %d", round, st.Seq)
		last = st.Seq
		r.Close()
	}
	r := openReplica(t, dir, Options{})
	res, err := r.Sync(ctxT(t), clientOf(eng))
	if err != nil || !res.CaughtUp() {
		t.Fatalf("final sync = %+v, %v", res, err)
	}
	eng.Close()
	sameAsEngine(t, r, eng.Dir)
	t.Logf("%d kills", kills)
}
