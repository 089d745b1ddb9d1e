package auth

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// The tokens of testdata/tokens-v2.json (see testdata/README.md).
const (
	v2DadLaptop = "spk_JQ4DTnzX0nGu4JAeLKIO89TTzGT_GqaFcW2pIwpLBys"
	v2Mum       = "spk_7EbCliBQy8QpADJmgiboFjBS363BHenopbFTXPfgiCQ"
	v2Desktop   = "spk_ZzmnMLLEX70bpDuDbdO76JgALtZVUCC0JhHPDcIL7oU"
)

// TestOpen_TokensOfMainV2 opens a token file as main wrote it before
// members: each token belongs to the member of its own name and keeps its
// scope, and the next change writes version 3 with those members.
func TestOpen_TokensOfMainV2(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "tokens-v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]Token{
		v2DadLaptop: {Name: "dad-laptop", Member: "dad-laptop", Scope: ScopeDevice},
		v2Mum:       {Name: "mum", Member: "mum", Scope: ScopeDevice},
		v2Desktop:   {Name: "spark-desktop-1764000000", Member: "spark-desktop-1764000000", Scope: ScopeAdmin},
	}
	lookAll := func(s *Store) {
		t.Helper()
		for tok, w := range want {
			got, ok := s.Lookup(tok)
			got.CreatedAt = time.Time{}
			if !ok || got != w {
				t.Errorf("Lookup(token of %s) = %+v, %v; want %+v", w.Name, got, ok, w)
			}
		}
	}
	s := openStore(t, path)
	lookAll(s)
	if _, err := s.AddMember("dad-desktop", "dad", ScopeDevice); err != nil {
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
	members := map[string]string{}
	for _, e := range f.Tokens {
		members[e.Name] = e.Member
	}
	if diff := cmp.Diff(map[string]string{"dad-laptop": "dad-laptop", "mum": "mum", "spark-desktop-1764000000": "spark-desktop-1764000000", "dad-desktop": "dad"}, members); diff != "" {
		t.Errorf("stored members (-want +got):\n%s", diff)
	}
	// A second store reads the rewritten file the same way.
	lookAll(openStore(t, path))
}

// TestStore_AddMember: tokens of one member say so on Lookup and List; a
// member's name is checked as a token's name is.
func TestStore_AddMember(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "tokens.json"))
	laptop, err := s.AddMember("dad-laptop", "dad", ScopeDevice)
	if err != nil {
		t.Fatal(err)
	}
	desktop, err := s.AddMember("dad-desktop", "dad", ScopeDevice)
	if err != nil {
		t.Fatal(err)
	}
	mum, err := s.Add("mum", ScopeDevice)
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string][2]string{laptop: {"dad-laptop", "dad"}, desktop: {"dad-desktop", "dad"}, mum: {"mum", "mum"}} {
		if got, ok := s.Lookup(tok); !ok || got.Name != want[0] || got.Member != want[1] {
			t.Errorf("Lookup = %+v, %v; want %s of %s", got, ok, want[0], want[1])
		}
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range list {
		if tk.Member == "" {
			t.Errorf("List: %s has no member", tk.Name)
		}
	}
	for _, bad := range []string{"", " dad", "dad\n", strings.Repeat("d", MaxNameLen+1), "\xff"} {
		if _, err := s.AddMember("x", bad, ScopeDevice); !errors.Is(err, ErrBadMember) {
			t.Errorf("AddMember with member %q: %v; want ErrBadMember", bad, err)
		}
	}
	// A version-3 file naming a bad member is refused, not guessed at.
	path := filepath.Join(t.TempDir(), "tokens.json")
	raw := `{"version": 3, "tokens": [{"name": "x", "member": "", "sha256": "89c8c64b40bbe75d87debc43c4d5d36fd6451b116831f48daba75e3c7b7bc59b", "scope": "device", "created_at": "2026-12-02T05:09:07Z"}]}`
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("Open accepted a version-3 token with no member")
	}
}
