package push

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpoint_PreviousName: a checkpoint that the previous main wrote,
// named by the two ids (testdata/checkpoint-v1), is read, and the next save
// moves it under its hashed name.
func TestCheckpoint_PreviousName(t *testing.T) {
	const src, dst = "01JD0000000000000000000000", "01JD1111111111111111111111"
	old := "push-" + src + "-to-" + dst + ".json"
	b, err := os.ReadFile(filepath.Join("testdata", "checkpoint-v1", old))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	if err := os.WriteFile(filepath.Join(state, old), b, 0o600); err != nil {
		t.Fatal(err)
	}
	p := &pusher{opts: Options{StateDir: state, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		stats: Stats{SourceID: src, TargetID: dst}}
	seq, err := p.loadCheckpoint()
	if err != nil || seq != 1234 {
		t.Fatalf("checkpoint of the previous main: seq %d, %v; want 1234", seq, err)
	}

	p.base = 1300
	p.save(true)
	if _, err := os.Stat(filepath.Join(state, old)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the previous name is still there after a save: %v", err)
	}
	if seq, err := p.loadCheckpoint(); err != nil || seq != 1300 {
		t.Fatalf("after the save: seq %d, %v; want 1300", seq, err)
	}
	// Besides the checkpoint, only the lock its saves hold (stateLockFile).
	ents, err := os.ReadDir(state)
	if err != nil || len(ents) != 2 || ents[0].Name() != checkpointName(src, dst) || ents[1].Name() != stateLockFile {
		t.Fatalf("state folder holds %v (%v), want only %s and %s", ents, err, checkpointName(src, dst), stateLockFile)
	}
}

func TestCheckpointName(t *testing.T) {
	for _, tc := range []struct{ src, dst string }{
		{"01JD0000000000000000000000", "01JD1111111111111111111111"},
		{"../../../../x/evil", "01JD1111111111111111111111"},
		{"01JD0000000000000000000000", "/../../../x/settings"},
		{"a\x00b", "c/d"},
	} {
		name := checkpointName(tc.src, tc.dst)
		if filepath.Base(name) != name || len(name) != len("push-.json")+32 {
			t.Errorf("checkpointName(%q, %q) = %q, want one plain name", tc.src, tc.dst, name)
		}
	}
	if checkpointName("a", "bc") == checkpointName("ab", "c") {
		t.Error("two pairs of ids share one checkpoint name")
	}
	for id, want := range map[string]bool{
		"01JD0000000000000000000000": true, "log-0123456789abcdef0123456789": true,
		"": false, "..": false, "a/b": false, `a\b`: false, "a.json": false, string(make([]byte, 65)): false,
	} {
		if got := plainID(id); got != want {
			t.Errorf("plainID(%q) = %v, want %v", id, got, want)
		}
	}
}
