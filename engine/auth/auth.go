// Package auth keeps the engine's bearer tokens.
//
// A token is minted once by Add ("spk_" and 32 random bytes in base64url)
// and shown to the person who asked for it; the store keeps only its
// SHA-256 with a name, the family member it belongs to, a scope and a
// creation time, in a JSON file (DATA/tokens.json, mode 0600) that is
// always rewritten atomically:
//
//	{"version": 3, "tokens": [{"name": "dad-laptop", "member": "dad", "sha256": "<hex>", "scope": "device", "created_at": "<RFC 3339>"}]}
//
// A token's scope says what it may do (see Scope); its member says whose
// it is: every token of one member (Dad's laptop and Dad's desktop) may
// change what any of them made. Version 1 of the file, written before
// scopes existed, had no scope: its tokens are read as admin, so that
// every client that worked before keeps working. Versions 1 and 2, written
// before members existed, have no member: each of their tokens belongs to
// the member of its own name, as ownership was by token then. The next
// change of the file writes them down as version 3.
//
// `spark-engine token add` may change the file while `spark-engine serve`
// runs; Check notices within a second. Every change (Add, Revoke) holds a
// lock file beside the token file (DATA/tokens.lock, see package dirlock)
// from reading the file to replacing it, so that changes made at once by
// several processes (token commands, the desktop app's engine minting its
// own token) all land, and none brings back a token another revoked.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/internal/dirlock"
)

// TokenPrefix starts every token, so that a token is recognizable in a
// config file or a leak scanner.
const TokenPrefix = "spk_"

// MaxNameLen is the longest token name, in bytes.
const MaxNameLen = 64

// maxTokenLen bounds what Check hashes: no token minted here is longer.
const maxTokenLen = 256

// recheckEvery is how often, at most, Check looks at the file for changes
// made by another process.
const recheckEvery = time.Second

// lockWait bounds how long a change waits for another process's change of
// the token file to finish (each takes milliseconds).
const lockWait = 30 * time.Second

// Errors of Add.
var (
	ErrDuplicate = errors.New("auth: a token with that name exists")
	ErrBadName   = errors.New("auth: bad token name")
	ErrBadMember = errors.New("auth: bad member name")
	ErrBadScope  = errors.New("auth: bad token scope")
)

// Scope is what a token may do.
type Scope string

const (
	// ScopeDevice is a family member's computer: it captures and reads,
	// edits and deletes the moments its member created (on any of the
	// member's computers), keeps phrases and removes its member's, asks
	// for readings, and imports finished readings onto its member's
	// moments.
	ScopeDevice Scope = "device"
	// ScopeAdmin may do everything, to anyone's moments.
	ScopeAdmin Scope = "admin"
)

// ParseScope checks a scope's name.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case ScopeDevice, ScopeAdmin:
		return Scope(s), nil
	}
	return "", fmt.Errorf("%w: %q; use %q or %q", ErrBadScope, s, ScopeDevice, ScopeAdmin)
}

// fileVersion is the version of the file this package writes; versions 1
// (no scopes) and 2 (no members) are read too.
const fileVersion = 3

// Token describes a stored token (never the token itself).
type Token struct {
	Name      string
	Member    string // the family member the token belongs to; never empty
	Scope     Scope
	CreatedAt time.Time
}

// entry is a token as stored in the file.
type entry struct {
	Name      string    `json:"name"`
	Member    string    `json:"member"` // absent in versions 1 and 2: Name
	SHA256    string    `json:"sha256"`
	Scope     Scope     `json:"scope"`
	CreatedAt time.Time `json:"created_at"`

	sum []byte // SHA256 decoded, for Check
}

type file struct {
	Version int     `json:"version"`
	Tokens  []entry `json:"tokens"`
}

// Store is the token file. Its methods are safe for concurrent use, and
// several processes may use the same file.
type Store struct {
	path string
	now  func() time.Time

	mu        sync.Mutex
	entries   []entry
	fi        os.FileInfo // of the file as last read; nil when absent
	lastCheck time.Time
}

// Open reads the token file at path; a missing file is an empty store,
// created by the first Add.
func Open(path string) (*Store, error) {
	s := &Store{path: path, now: time.Now}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// load reads the file into the store. s.mu must be held (or s unshared).
func (s *Store) load() error {
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.entries, s.fi = nil, nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	b, err := atomicfile.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("auth: %s is not a token file: %w; move it away and add the tokens again", s.path, err)
	}
	if f.Version < 1 || f.Version > fileVersion {
		return fmt.Errorf("auth: %s has version %d; this engine reads versions 1 to %d", s.path, f.Version, fileVersion)
	}
	for i := range f.Tokens {
		e := &f.Tokens[i]
		if f.Version == 1 {
			// Stored before scopes: every token could do everything.
			e.Scope = ScopeAdmin
		} else if _, err := ParseScope(string(e.Scope)); err != nil {
			return fmt.Errorf("auth: %s: the token %q has the scope %q; revoke it and add it again", s.path, e.Name, e.Scope)
		}
		if f.Version < 3 {
			// Stored before members: a token was its own member.
			e.Member = e.Name
		} else if err := CheckMember(e.Member); err != nil {
			return fmt.Errorf("auth: %s: the token %q has a bad member (%v); revoke it and add it again", s.path, e.Name, err)
		}
		sum, err := hex.DecodeString(e.SHA256)
		if err != nil || len(sum) != sha256.Size {
			return fmt.Errorf("auth: %s: the token %q has a bad sha256; revoke it and add it again", s.path, e.Name)
		}
		e.sum = sum
	}
	s.entries, s.fi = f.Tokens, fi
	return nil
}

// changed reports whether the file is not the one last read.
func (s *Store) changed() bool {
	fi, err := os.Stat(s.path)
	if err != nil {
		return s.fi != nil || !errors.Is(err, fs.ErrNotExist)
	}
	return s.fi == nil || !os.SameFile(s.fi, fi) || fi.Size() != s.fi.Size() || !fi.ModTime().Equal(s.fi.ModTime())
}

// Check reports whose token it is (see Lookup).
func (s *Store) Check(token string) (name string, ok bool) {
	t, ok := s.Lookup(token)
	return t.Name, ok
}

// Lookup reports whose token it is: its name, member and scope. It
// compares the token's hash with every
// stored hash in constant time, and re-reads the file, at most once a
// second, when another process has changed it.
func (s *Store) Lookup(token string) (t Token, ok bool) {
	if token == "" || len(token) > maxTokenLen {
		return Token{}, false
	}
	sum := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := s.now(); now.Sub(s.lastCheck) >= recheckEvery || now.Before(s.lastCheck) {
		s.lastCheck = now
		if s.changed() {
			// On a failed read, keep the tokens known so far; the next
			// check tries again.
			_ = s.load()
		}
	}
	for _, e := range s.entries {
		if subtle.ConstantTimeCompare(sum[:], e.sum) == 1 {
			t, ok = e.token(), true
		}
	}
	return t, ok
}

// CheckName checks a token name: 1 to 64 bytes of printable characters,
// without space at either end.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty; name the token after the device or person using it, e.g. phone", ErrBadName)
	case len(name) > MaxNameLen:
		return fmt.Errorf("%w: %q is %d bytes long; at most %d are allowed", ErrBadName, name, len(name), MaxNameLen)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrBadName, name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("%w: %q starts or ends with a space", ErrBadName, name)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%w: %q has the unprintable character %U", ErrBadName, name, r)
		}
	}
	return nil
}

// CheckMember checks a member's name by the rules of a token's name
// (CheckName).
func CheckMember(member string) error {
	if member == "" {
		return fmt.Errorf("%w: the member is empty; name the family member the token is for, e.g. dad", ErrBadMember)
	}
	if err := CheckName(member); err != nil {
		// The reason is CheckName's, after its sentinel.
		return fmt.Errorf("%w%s", ErrBadMember, strings.TrimPrefix(err.Error(), ErrBadName.Error()))
	}
	return nil
}

// token is e as Lookup and List describe it.
func (e entry) token() Token {
	return Token{Name: e.Name, Member: e.Member, Scope: e.Scope, CreatedAt: e.CreatedAt}
}

// Add mints a token for name with scope, belonging to the member of its
// own name (AddMember), stores its hash and returns the token, which is
// never stored and cannot be shown again.
func (s *Store) Add(name string, scope Scope) (string, error) {
	return s.AddMember(name, name, scope)
}

// AddMember mints a token for name with scope, belonging to member (a
// family member: Dad's laptop and Dad's desktop are two tokens of the
// member dad), stores its hash and returns the token, which is never
// stored and cannot be shown again.
func (s *Store) AddMember(name, member string, scope Scope) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	if err := CheckMember(member); err != nil {
		return "", err
	}
	if _, err := ParseScope(string(scope)); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lockFile("token add")
	if err != nil {
		return "", err
	}
	defer unlock()
	if err := s.load(); err != nil {
		return "", err
	}
	for _, e := range s.entries {
		if e.Name == name {
			return "", fmt.Errorf("%w: %q; revoke it first or choose another name", ErrDuplicate, name)
		}
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("auth: mint a token: %w", err)
	}
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	sum := sha256.Sum256([]byte(token))
	entries := append(slices.Clone(s.entries), entry{
		Name: name, Member: member, SHA256: hex.EncodeToString(sum[:]), Scope: scope, CreatedAt: s.now().UTC().Truncate(time.Second), sum: sum[:],
	})
	if err := s.write(entries); err != nil {
		return "", err
	}
	return token, nil
}

// List returns the stored tokens (names, members, scopes and creation
// times), oldest first.
func (s *Store) List() ([]Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return nil, err
	}
	out := make([]Token, 0, len(s.entries))
	for _, e := range s.entries {
		out = append(out, e.token())
	}
	slices.SortStableFunc(out, func(a, b Token) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// Revoke removes the token with that name and reports whether there was one.
func (s *Store) Revoke(name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lockFile("token revoke")
	if err != nil {
		return false, err
	}
	defer unlock()
	if err := s.load(); err != nil {
		return false, err
	}
	i := slices.IndexFunc(s.entries, func(e entry) bool { return e.Name == name })
	if i < 0 {
		return false, nil
	}
	if err := s.write(slices.Delete(slices.Clone(s.entries), i, i+1)); err != nil {
		return false, err
	}
	return true, nil
}

// lockName is the name of the token file's lock, beside it: tokens.lock
// for tokens.json.
func (s *Store) lockName() string {
	return strings.TrimSuffix(filepath.Base(s.path), filepath.Ext(s.path)) + ".lock"
}

// lockFile takes the lock of the token file for a change, waiting for
// another process's change to finish, and returns its release.
func (s *Store) lockFile(purpose string) (func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	l, err := dirlock.Wait(ctx, filepath.Dir(s.path), s.lockName(), purpose)
	if err != nil {
		return nil, fmt.Errorf("auth: the token file %s is being changed by another process: %w", s.path, err)
	}
	return func() { l.Release() }, nil
}

// SweepTemps removes the temp files that a change of the token file cut
// short by a crash or a kill left beside it (atomicfile.SweepTemps). Every
// change writes the file holding its lock, so the sweep takes the lock
// too, without waiting: while another process holds it, a change is in
// progress whose temp file looks like a leftover, and nothing is removed
// (the next sweep does it). The engine calls it when it opens.
func (s *Store) SweepTemps() error {
	if err := atomicfile.SweepTempsUnlessHeld(s.path, filepath.Dir(s.path), s.lockName(), "removing the temp files of changes cut short"); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return nil
}

// write replaces the file with entries atomically, so that a crash leaves
// the old list or the new one.
func (s *Store) write(entries []entry) error {
	if entries == nil {
		entries = []entry{}
	}
	b, err := json.MarshalIndent(file{Version: fileVersion, Tokens: entries}, "", "  ")
	if err != nil {
		return fmt.Errorf("auth: encode tokens: %w", err)
	}
	if err := atomicfile.WriteFile(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("auth: write tokens: %w", err)
	}
	s.entries = entries
	if fi, err := os.Stat(s.path); err == nil {
		s.fi = fi
	}
	return nil
}
