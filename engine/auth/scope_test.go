package auth

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The tokens of testdata/tokens-v1.json (see testdata/README.md).
const (
	v1Phone   = "spk_eKHJPQEwYyYQAPrjiI9c7WEImzSx8HiydJUnOrPbmsw"
	v1Desktop = "spk_hdA3PyjOBwjK1r6La9nGhAqyHqb6OtQM-TSgZxRirfI"
)

// TestOpen_TokensOfMain opens a token file as main wrote it before scopes:
// its tokens still check, as admin, and the next change writes version 2
// keeping them admin.
func TestOpen_TokensOfMain(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "tokens-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path)
	for tok, name := range map[string]string{v1Phone: "phone", v1Desktop: "spark-desktop-1764000000"} {
		got, ok := s.Lookup(tok)
		if !ok || got.Name != name || got.Scope != ScopeAdmin {
			t.Errorf("Lookup(token of %s) = %+v, %v; want %s as admin", name, got, ok, name)
		}
	}
	if _, err := s.Add("laptop", ScopeDevice); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != fileVersion {
		t.Errorf("version after a change = %d, want %d", f.Version, fileVersion)
	}
	want := map[string]Scope{"phone": ScopeAdmin, "spark-desktop-1764000000": ScopeAdmin, "laptop": ScopeDevice}
	for _, e := range f.Tokens {
		if e.Scope != want[e.Name] {
			t.Errorf("stored scope of %s = %q, want %q", e.Name, e.Scope, want[e.Name])
		}
	}
	// A second store reads the rewritten file the same way.
	s2 := openStore(t, path)
	if got, ok := s2.Lookup(v1Phone); !ok || got.Scope != ScopeAdmin {
		t.Errorf("reopened: Lookup(phone) = %+v, %v; want admin", got, ok)
	}
}

func TestStore_Scopes(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "tokens.json"))
	dev, err := s.Add("kid", ScopeDevice)
	if err != nil {
		t.Fatal(err)
	}
	adm, err := s.Add("me", ScopeAdmin)
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]Token{dev: {Name: "kid", Scope: ScopeDevice}, adm: {Name: "me", Scope: ScopeAdmin}} {
		if got, ok := s.Lookup(tok); !ok || got.Name != want.Name || got.Scope != want.Scope {
			t.Errorf("Lookup = %+v, %v; want %+v", got, ok, want)
		}
	}
	for _, bad := range []Scope{"", "root", "Admin"} {
		if _, err := s.Add("x", bad); !errors.Is(err, ErrBadScope) {
			t.Errorf("Add with scope %q: %v; want ErrBadScope", bad, err)
		}
	}
	list, err := s.List()
	if err != nil || len(list) != 2 || list[0].Scope != ScopeDevice || list[1].Scope != ScopeAdmin {
		t.Errorf("List = %+v, %v", list, err)
	}
}

// TestOpen_BadScope refuses a version-2 file naming an unknown scope
// rather than guessing what the token may do.
func TestOpen_BadScope(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	raw := `{"version": 2, "tokens": [{"name": "x", "sha256": "89c8c64b40bbe75d87debc43c4d5d36fd6451b116831f48daba75e3c7b7bc59b", "scope": "root", "created_at": "2026-12-02T05:09:07Z"}]}`
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("Open accepted a token with the scope root")
	}
}
