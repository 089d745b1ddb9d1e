package engine

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/internal/atomicfile/atomicfiletest"
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
	r := atomicfiletest.ReadWhileReplaced(2*time.Second, func() error {
		return atomicfile.WriteFile(filepath.Join(dir, IdentityFile), b, 0o600)
	}, func() error {
		got, err := loadIdentity(dir)
		if err == nil && got != id {
			err = fmt.Errorf("id %q, want %q", got, id)
		}
		return err
	})
	t.Logf("%d reads beside %d replaces", r.Reads, r.Writes)
	if r.Failed > 0 {
		t.Errorf("%d of %d reads failed while the file was replaced; the first: %v", r.Failed, r.Reads, r.First)
	}
	if r.Writes == 0 {
		t.Error("the file was never replaced")
	}
}
