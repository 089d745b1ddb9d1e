package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIdentity_KeptInTheFolder(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	first := e.Health(ctxT(t)).EngineID
	if first == "" {
		t.Fatal("health reports no engine id")
	}
	if again := e.Health(ctxT(t)).EngineID; again != first {
		t.Fatalf("the engine id changed from %s to %s", first, again)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openEngine(t, dir)
	if got := e.Health(ctxT(t)).EngineID; got != first {
		t.Errorf("after a restart the engine id is %s, want %s", got, first)
	}
	other := openEngine(t, t.TempDir())
	if got := other.Health(ctxT(t)).EngineID; got == first || got == "" {
		t.Errorf("another folder's engine id is %q, want a new one (not %s)", got, first)
	}
}

func TestIdentity_BadFileIsNamed(t *testing.T) {
	for name, body := range map[string]string{
		"not json":      "{",
		"newer version": `{"version": 2, "id": "01JC0000000000000000000000"}`,
		"not a ulid":    `{"version": 1, "id": "engine one"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, IdentityFile)
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := loadIdentity(dir)
			if err == nil || !strings.Contains(err.Error(), IdentityFile) {
				t.Errorf("loadIdentity = %v, want an error naming %s", err, IdentityFile)
			}
			if b, _ := os.ReadFile(path); string(b) != body {
				t.Errorf("the bad file was changed to %q", b)
			}
		})
	}
}
