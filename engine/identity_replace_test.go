package engine

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/atomicfile"
)

// TestIdentity_ReadWhileReplaced reads the engine id while another process
// (push's source check, a restore tool, a second engine) replaces the file
// with atomicfile.WriteFile: every read succeeds. On Windows, os.ReadFile
// opens without delete sharing, so a read that meets the replace fails
// with "Access is denied"; atomicfile.ReadFile does not.
func TestIdentity_ReadWhileReplaced(t *testing.T) {
	dir := t.TempDir()
	id, err := loadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := atomicfile.ReadFile(filepath.Join(dir, IdentityFile))
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes atomic.Int64
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := atomicfile.WriteFile(filepath.Join(dir, IdentityFile), b, 0o600); err == nil {
				writes.Add(1)
			}
		}
	})
	failed := 0
	var first error
	deadline := time.Now().Add(2 * time.Second)
	reads := 0
	for ; time.Now().Before(deadline); reads++ {
		got, err := loadIdentity(dir)
		if err != nil || got != id {
			failed++
			if first == nil {
				first = err
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	close(stop)
	wg.Wait()
	t.Logf("%d reads beside %d replaces", reads, writes.Load())
	if failed > 0 {
		t.Errorf("%d of %d reads failed while the file was replaced; the first: %v", failed, reads, first)
	}
	if writes.Load() == 0 {
		t.Error("the file was never replaced")
	}
}
