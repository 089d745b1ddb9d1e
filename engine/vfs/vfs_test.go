package vfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/engine/vfs"
	"github.com/sparkfamily/spark/engine/vfs/crashfs"
)

// TestMkdirAll: the directories MkdirAll makes survive a power cut (it
// syncs the parent of each), whatever the seed.
func TestMkdirAll(t *testing.T) {
	for seed := range uint64(20) {
		disk, err := crashfs.New(t.TempDir(), seed)
		if err != nil {
			t.Fatal(err)
		}
		deep := filepath.Join(disk.Root(), "media", "sha256", "ab")
		if err := vfs.MkdirAll(disk, deep, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := vfs.MkdirAll(disk, deep, 0o700); err != nil {
			t.Fatalf("MkdirAll of a directory that exists: %v", err)
		}
		disk.Crash()
		img := filepath.Join(t.TempDir(), "after")
		if err := disk.WriteImage(img); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(filepath.Join(img, "media", "sha256", "ab")); err != nil || !fi.IsDir() {
			t.Fatalf("seed %d: the directories made are gone after a power cut: %v", seed, err)
		}
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	if err := vfs.MkdirAll(vfs.OS, f, 0o700); err == nil {
		t.Error("MkdirAll over a file succeeded")
	}
}
