package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/syncbuf"
)

func momentsJSON(t *testing.T, data string) momentsListing {
	t.Helper()
	code, out, errOut := spark(t, nil, "--data", data, "moments", "--json")
	if code != 0 {
		t.Fatalf("moments --json = %d: %s", code, errOut)
	}
	var l momentsListing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("moments --json output: %v\n%s", err, out)
	}
	for _, key := range []string{`"moments"`, `"as_of_seq"`, `"synced_at"`} {
		if !strings.Contains(out, key) {
			t.Errorf("moments --json has no %s:\n%s", key, out)
		}
	}
	return l
}

func TestSyncAndMoments(t *testing.T) {
	eng := enginetest.Start(t)
	vars := map[string]string{"SPARK_ENGINE": eng.URL, "SPARK_TOKEN": eng.Token}
	data, src := t.TempDir(), t.TempDir()
	const n = 5
	for i := range n {
		writeJPEG(t, filepath.Join(src, fmt.Sprintf("p%02d.jpg", i)), uint8(i*40))
	}
	if code, out, errOut := spark(t, nil, "--data", data, "import", src); code != 0 {
		t.Fatalf("import = %d\n%s\n%s", code, out, errOut)
	}
	// Before a sync: the captures are listed as pending, with their photo.
	l := momentsJSON(t, data)
	if len(l.Moments) != n || l.SyncedAt != nil || l.AsOfSeq != 0 {
		t.Fatalf("moments before any sync = %+v", l)
	}
	for _, m := range l.Moments {
		if !m.Pending || !m.CopyCached || m.Kind != api.KindPhoto {
			t.Errorf("a capture not sent: %+v, want pending with its photo", m)
		}
	}
	if code, out, errOut := spark(t, vars, "--data", data, "drain", "--for", "30s"); code != 0 {
		t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
	}
	deadline := time.Now().Add(30 * time.Second)
	for eng.OpCount(t, api.OpTurnFinish) < n {
		if time.Now().After(deadline) {
			t.Fatal("the readings did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, out, errOut := spark(t, vars, "--data", data, "sync")
	if code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("sync = %d\n%s\n%s", code, out, errOut)
	}
	// One more capture, not sent: merged in as pending.
	writeJPEG(t, filepath.Join(src, "late.jpg"), 250)
	if code, out, errOut := spark(t, nil, "--data", data, "import", filepath.Join(src, "late.jpg")); code != 0 {
		t.Fatalf("import = %d\n%s\n%s", code, out, errOut)
	}
	eng.Close()

	l = momentsJSON(t, data)
	if len(l.Moments) != n+1 || l.SyncedAt == nil || l.AsOfSeq == 0 {
		t.Fatalf("moments after the sync, engine stopped = %+v", l)
	}
	pending := 0
	for _, m := range l.Moments {
		if m.Pending {
			pending++
			continue
		}
		if !m.CopyCached || len(m.Readings) != 1 || m.Readings[0].Status != api.TurnFinished || m.Readings[0].Text == "" {
			t.Errorf("a synced moment: %+v, want its photo here and one finished reading", m)
		}
	}
	if pending != 1 {
		t.Errorf("%d pending moments, want the one capture not sent", pending)
	}
	code, out, _ = spark(t, nil, "--data", data, "moments")
	if code != 0 || !strings.Contains(out, "not sent yet") || !strings.Contains(out, fmt.Sprintf("%d moments, as of", n+1)) {
		t.Errorf("moments = %d:\n%s", code, out)
	}

	// With the engine stopped, sync says why and fails.
	code, _, errOut = spark(t, vars, "--data", data, "sync")
	if code == 0 || !strings.Contains(errOut, "cannot reach the engine") {
		t.Errorf("sync with the engine stopped = %d: %s", code, errOut)
	}
}

// spark sync --watch syncs again and again, says why a sync failed, and
// exits 0 when stopped.
func TestSyncWatch(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	data := t.TempDir()
	var out, errOut syncbuf.Buffer
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--data", data, "--engine", eng.URL, "--token", eng.Token, "sync", "--watch", "--every", "50ms"}, env{
			stdout: &out, stderr: &errOut,
			getenv:     func(string) string { return "" },
			isTerminal: func(io.Writer) bool { return false },
		})
	}()
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				stop()
				t.Fatalf("timed out waiting for %s\nstdout:\n%s\nstderr:\n%s", what, out.String(), errOut.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait("two syncs", func() bool { return strings.Count(out.String(), "up to date") >= 2 })
	eng.Close()
	wait("a failed sync's reason", func() bool { return strings.Contains(errOut.String(), "cannot reach the engine") })
	stop()
	if code := <-done; code != 0 {
		t.Errorf("sync --watch stopped = %d, want 0", code)
	}
}
