package push

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/atomicfile"
	"github.com/sparkfamily/spark/engine"
)

// readWhileReplaced calls read for a second while write replaces the file
// it reads, as a push saving its checkpoint does beside another push's
// start, or an engine beside push reading its id, and returns how many
// reads failed and the first error. On Windows a read with os.ReadFile
// (no delete sharing) that meets the replace fails with a sharing
// violation; atomicfile.ReadFile does not.
func readWhileReplaced(t *testing.T, write func(), read func() error) (failed, reads int, first error) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			write()
		}
	})
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); reads++ {
		if err := read(); err != nil {
			failed++
			if first == nil {
				first = err
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	close(stop)
	wg.Wait()
	return failed, reads, first
}

func TestCheckpoint_ReadWhileReplaced(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	p := &pusher{opts: Options{StateDir: t.TempDir(), Logger: quiet}, stats: Stats{SourceID: "src", TargetID: "dst"}, base: 42}
	p.save(true)
	failed, reads, first := readWhileReplaced(t, func() { p.save(true) }, func() error {
		seq, err := p.loadCheckpoint()
		if err == nil && seq != 42 {
			t.Errorf("checkpoint seq %d, want 42", seq)
		}
		return err
	})
	if failed > 0 {
		t.Errorf("%d of %d checkpoint reads failed while it was saved; the first: %v", failed, reads, first)
	}
}

func TestSourceID_ReadWhileReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, engine.IdentityFile)
	b := []byte(`{"version":1,"id":"01JD0000000000000000000000"}` + "\n")
	if err := atomicfile.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	failed, reads, first := readWhileReplaced(t, func() { atomicfile.WriteFile(path, b, 0o600) }, func() error {
		id, err := sourceID(context.Background(), dir, nil)
		if err == nil && id != "01JD0000000000000000000000" {
			t.Errorf("source id %q", id)
		}
		return err
	})
	if failed > 0 {
		t.Errorf("%d of %d reads of the source's id failed while it was replaced; the first: %v", failed, reads, first)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
