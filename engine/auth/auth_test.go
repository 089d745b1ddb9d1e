package auth

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func openStore(tb testing.TB, path string) *Store {
	tb.Helper()
	s, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func addToken(tb testing.TB, s *Store, name string) string {
	tb.Helper()
	tok, err := s.Add(name, ScopeDevice)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func TestStore_AddCheckRevoke(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	s := openStore(t, path)
	if _, ok := s.Check("spk_anything"); ok {
		t.Fatal("an empty store accepted a token")
	}
	phone := addToken(t, s, "phone")
	laptop := addToken(t, s, "Dad's laptop")
	if !strings.HasPrefix(phone, TokenPrefix) || len(phone) != len(TokenPrefix)+43 || phone == laptop {
		t.Fatalf("tokens %q, %q", phone, laptop)
	}
	for tok, want := range map[string]string{phone: "phone", laptop: "Dad's laptop"} {
		if name, ok := s.Check(tok); !ok || name != want {
			t.Errorf("Check = %q, %v; want %q", name, ok, want)
		}
	}
	for _, bad := range []string{"", phone[:len(phone)-1], phone + "x", strings.ToUpper(phone), strings.Repeat("a", 10000)} {
		if name, ok := s.Check(bad); ok {
			t.Errorf("Check(%.20q) accepted for %q", bad, name)
		}
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), phone) || strings.Contains(string(raw), phone[len(TokenPrefix):]) {
		t.Fatal("the token file holds a token in clear")
	}
	var f file
	if err := json.Unmarshal(raw, &f); err != nil || f.Version != fileVersion || len(f.Tokens) != 2 || len(f.Tokens[0].SHA256) != 64 {
		t.Fatalf("token file %s: %v", raw, err)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(path)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
		}
	}

	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tk := range list {
		names = append(names, tk.Name)
		if tk.CreatedAt.IsZero() {
			t.Errorf("token %q has no creation time", tk.Name)
		}
	}
	if diff := cmp.Diff([]string{"phone", "Dad's laptop"}, names); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	if ok, err := s.Revoke("phone"); !ok || err != nil {
		t.Fatalf("Revoke = %v, %v", ok, err)
	}
	if ok, err := s.Revoke("phone"); ok || err != nil {
		t.Errorf("second Revoke = %v, %v; want false, nil", ok, err)
	}
	if _, ok := s.Check(phone); ok {
		t.Error("a revoked token is still accepted")
	}
	if _, ok := s.Check(laptop); !ok {
		t.Error("revoking one token dropped another")
	}
	// A fresh store reads the same file.
	if name, ok := openStore(t, path).Check(laptop); !ok || name != "Dad's laptop" {
		t.Errorf("reopened Check = %q, %v", name, ok)
	}
	// No temp file is left; the lock file of the changes stays (empty).
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 || entries[1].Name() != "tokens.lock" {
		t.Errorf("files beside the token file: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "tokens.lock")); len(b) != 0 {
		t.Errorf("the lock file still names a holder: %q", b)
	}
}

func TestStore_AddErrors(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "tokens.json"))
	addToken(t, s, "phone")
	tests := []struct {
		name string
		want error
	}{
		{"phone", ErrDuplicate},
		{"", ErrBadName},
		{strings.Repeat("n", MaxNameLen+1), ErrBadName},
		{" phone2", ErrBadName},
		{"tab\there", ErrBadName},
		{"bad\xff", ErrBadName},
	}
	for _, tt := range tests {
		if _, err := s.Add(tt.name, ScopeDevice); !errors.Is(err, tt.want) {
			t.Errorf("Add(%q) = %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := s.Add(strings.Repeat("n", MaxNameLen), ScopeDevice); err != nil {
		t.Errorf("Add of a %d-byte name = %v", MaxNameLen, err)
	}
	if _, err := s.Add("téléphone de papa", ScopeDevice); err != nil {
		t.Errorf("Add of a Unicode name = %v", err)
	}
}

func TestStore_NoticesOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	serve := openStore(t, path)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	serve.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	serve.Check("warm up") // the first check reads the (missing) file

	// "spark-engine token add" in another process: another Store.
	tok := addToken(t, openStore(t, path), "phone")
	if _, ok := serve.Check(tok); ok {
		t.Error("the file was read again within a second")
	}
	advance(time.Second)
	if name, ok := serve.Check(tok); !ok || name != "phone" {
		t.Errorf("Check a second later = %q, %v; want the new token", name, ok)
	}
	if ok, err := openStore(t, path).Revoke("phone"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	advance(1500 * time.Millisecond)
	if _, ok := serve.Check(tok); ok {
		t.Error("a token revoked by another process is still accepted")
	}
	// A damaged file keeps the tokens known so far.
	tok2 := addToken(t, serve, "laptop")
	os.WriteFile(path, []byte("{not json"), 0o600)
	advance(2 * time.Second)
	if _, ok := serve.Check(tok2); !ok {
		t.Error("a damaged file dropped the tokens in memory")
	}
	if _, err := serve.List(); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("List of a damaged file = %v, want an error naming it", err)
	}
}

func TestOpen_Errors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, content, want string }{
		{"NotJSON", "hello", "not a token file"},
		{"Version", `{"version":4,"tokens":[]}`, "version 4"},
		{"VersionZero", `{"version":0,"tokens":[]}`, "version 0"},
		{"BadHash", `{"version":1,"tokens":[{"name":"x","sha256":"zz"}]}`, "bad sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".json")
			os.WriteFile(p, []byte(tt.content), 0o600)
			if _, err := Open(p); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := openStore(t, filepath.Join(dir, "missing", "tokens.json")).Add("x", ScopeDevice); err == nil {
		t.Error("Add in a missing directory succeeded")
	}
}

func TestStore_ConcurrentCheck(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "tokens.json"))
	tok := addToken(t, s, "phone")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if _, ok := s.Check(tok); !ok {
					t.Error("Check failed under concurrency")
					return
				}
			}
			if i == 0 {
				if _, err := s.Add("other", ScopeDevice); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkCheck(b *testing.B) {
	s := openStore(b, filepath.Join(b.TempDir(), "tokens.json"))
	var tok string
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		tok = addToken(b, s, n)
	}
	for b.Loop() {
		if _, ok := s.Check(tok); !ok {
			b.Fatal("rejected")
		}
	}
}
