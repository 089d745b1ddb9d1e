package backup

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"filippo.io/age"
)

// testKey is the key the tests' copies are made with.
var testKey = newTestKey()

func newTestKey() *Key {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		panic(err)
	}
	return &Key{id: id}
}

func TestKey(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadKey(dir); !errors.Is(err, ErrNoKey) {
		t.Fatalf("LoadKey of a folder with none: %v, want ErrNoKey", err)
	}
	k, created, err := LoadOrCreateKey(dir)
	if err != nil || !created {
		t.Fatalf("LoadOrCreateKey = %v, %v; want a new key", created, err)
	}
	if !strings.HasPrefix(k.Recipient(), "age1") {
		t.Errorf("Recipient = %q, want age1...", k.Recipient())
	}
	fi, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 && runtime.GOOS != "windows" {
		t.Errorf("%s has mode %o, want 600", KeyFile, perm)
	}
	again, created, err := LoadOrCreateKey(dir)
	if err != nil || created || again.id.String() != k.id.String() {
		t.Fatalf("LoadOrCreateKey again: created %v, %v, same key %v", created, err, again != nil && again.id.String() == k.id.String())
	}
	file, err := os.ReadFile(filepath.Join(dir, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	text := k.RecoveryText()
	for _, want := range []string{
		"This is the key to your off-site copy. Without it nobody can read the",
		"copy, not even you. Print it or write it down and keep it somewhere",
		"other than this computer.",
		k.Recipient(),
		"\n" + k.id.String() + "\n",
		"--key THIS_FILE",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the recovery text lacks %q:\n%s", want, text)
		}
	}
	// The key written by hand from its groups, typed back.
	var typed string
	for _, l := range strings.Split(text, "\n") {
		if s := strings.TrimSpace(strings.TrimPrefix(l, "#")); strings.HasPrefix(s, keyPrefix+" ") {
			typed = "my key:\n\n  " + strings.ToLower(s) + "  \n"
		}
	}
	if typed == "" {
		t.Fatalf("the recovery text has no key in groups:\n%s", text)
	}
	for name, in := range map[string]string{"KeyFile": string(file), "RecoveryText": text, "Typed": typed} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseKey(strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			if got.id.String() != k.id.String() {
				t.Errorf("ParseKey read another key")
			}
			if name != "Typed" {
				// The stock age tool reads it as an identity file.
				if ids, err := age.ParseIdentities(strings.NewReader(in)); err != nil || len(ids) != 1 {
					t.Errorf("age reads %d identities from it: %v", len(ids), err)
				}
			}
		})
	}
	t.Run("Errors", func(t *testing.T) {
		other := newTestKey()
		for name, in := range map[string]string{
			"Empty":   "# nothing\n\n",
			"Cut":     k.id.String()[:40] + "\n",
			"TwoKeys": k.id.String() + "\n" + other.id.String() + "\n",
		} {
			if _, err := ParseKey(strings.NewReader(in)); err == nil {
				t.Errorf("%s: ParseKey = nil error", name)
			} else if strings.Contains(err.Error(), k.id.String()[20:40]) {
				t.Errorf("%s: the error shows the key: %v", name, err)
			}
		}
	})
}
