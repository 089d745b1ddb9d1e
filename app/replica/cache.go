package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/blobstage"
)

// ErrCacheFull is returned by Put when the copy does not fit in the budget
// without evicting copies viewed (or of moments created) after its stamp,
// or pinned ones.
var ErrCacheFull = errors.New("replica: the small copies' cache is full")

// ChecksumError reports bytes that are not the copy the log names.
type ChecksumError struct {
	Want, Got string
	WantSize  int64
	GotSize   int64
}

func (e *ChecksumError) Error() string {
	if e.GotSize != e.WantSize {
		return fmt.Sprintf("the engine sent %d bytes for the small copy with SHA-256 %s, but its log records %d bytes; it was not kept", e.GotSize, e.Want, e.WantSize)
	}
	return fmt.Sprintf("the engine sent bytes with SHA-256 %s for the small copy its log records as %s; it was not kept", e.Got, e.Want)
}

// Cache holds small copies by their SHA-256, within a byte budget: when a
// copy does not fit, the copies least recently viewed go first, never a
// pinned one. A copy never viewed counts as viewed when its moment was
// created (Put's stamp). Its methods are safe for concurrent use.
type Cache struct {
	dir string
	now func() time.Time

	mu      sync.Mutex
	budget  int64 // SetBudget changes it
	entries map[string]*cacheEntry
	total   int64
	pins    map[string]int
}

type cacheEntry struct {
	size int64
	used time.Time
}

const tmpPrefix = ".tmp-"

func openCache(dir string, budget int64, now func() time.Time) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("replica: create %s: %w", dir, err)
	}
	c := &Cache{dir: dir, budget: budget, now: now, entries: map[string]*cacheEntry{}, pins: map[string]int{}}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("replica: read %s: %w", dir, err)
	}
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			os.Remove(filepath.Join(dir, name)) // a copy cut short; fetched again
			continue
		}
		if !api.ValidSHA256(name) || !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		c.entries[name] = &cacheEntry{size: fi.Size(), used: fi.ModTime()}
		c.total += fi.Size()
	}
	return c, nil
}

// Has reports whether the copy with this SHA-256 is cached.
func (c *Cache) Has(sha string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[sha] != nil
}

// Usage returns how many copies the cache holds and their bytes.
func (c *Cache) Usage() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.total
}

// Budget returns the cache's byte budget.
func (c *Cache) Budget() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.budget
}

// View opens a cached copy to show it and marks it viewed now; the caller
// closes the file. A copy not cached is os.ErrNotExist.
func (c *Cache) View(sha string) (*os.File, error) {
	if !api.ValidSHA256(sha) {
		return nil, fmt.Errorf("replica: %q is not a SHA-256: %w", sha, os.ErrNotExist)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[sha]
	if e == nil {
		return nil, fmt.Errorf("replica: the small copy %s is not on this computer: %w", sha, os.ErrNotExist)
	}
	path := filepath.Join(c.dir, sha)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	now := c.now()
	if err := os.Chtimes(path, now, now); err == nil {
		e.used = now
	}
	return f, nil
}

// Pin keeps a copy from eviction (the app pins what is on screen) until as
// many Unpin calls follow.
func (c *Cache) Pin(sha string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pins[sha]++
}

// Unpin undoes one Pin.
func (c *Cache) Unpin(sha string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pins[sha] <= 1 {
		delete(c.pins, sha)
		return
	}
	c.pins[sha]--
}

// Put stores the copy with SHA-256 sha and size bytes read from body,
// checking both: bytes that are not that copy are a *ChecksumError and are
// not kept. stamp counts as the copy's last view. To make room, Put evicts
// the least recently viewed copies, but only those viewed before stamp and
// not pinned; when that is not enough it keeps nothing and returns
// ErrCacheFull. A copy already cached is left as it is.
func (c *Cache) Put(sha string, size int64, body io.Reader, stamp time.Time) error {
	if !api.ValidSHA256(sha) {
		return fmt.Errorf("replica: the log names a small copy by %q, which is not a SHA-256", sha)
	}
	if c.Has(sha) {
		return nil
	}
	if size > c.Budget() {
		return ErrCacheFull
	}
	f, err := os.CreateTemp(c.dir, tmpPrefix+"*")
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	// One staging for every blob (internal/blobstage): hashed while it
	// streams, fsync'ed, then renamed.
	d, err := blobstage.Stage(context.Background(), f, body, size)
	if errors.Is(err, blobstage.ErrTooLarge) {
		return &ChecksumError{Want: sha, WantSize: size, GotSize: size + 1}
	}
	if err != nil {
		return fmt.Errorf("replica: store the small copy %s: %w", sha, err)
	}
	if n, got := d.Size(), d.Hex(); n != size || got != sha {
		return &ChecksumError{Want: sha, Got: got, WantSize: size, GotSize: n}
	}
	if err := os.Chtimes(tmp, stamp, stamp); err != nil {
		return fmt.Errorf("replica: %w", err)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[sha] != nil {
		return nil
	}
	if err := c.makeRoom(size, stamp); err != nil {
		return err
	}
	if err := blobstage.Place(blobstage.OS, tmp, filepath.Join(c.dir, sha)); err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	c.entries[sha] = &cacheEntry{size: size, used: stamp}
	c.total += size
	return nil
}

// makeRoom evicts copies viewed before stamp, oldest first, until size more
// bytes fit; it evicts nothing when they cannot be made to fit.
func (c *Cache) makeRoom(size int64, stamp time.Time) error {
	return c.evict(size, stamp, false)
}

// SetBudget changes the cache's byte budget. A smaller one evicts the
// copies least recently viewed, never a pinned one, until the rest fit
// (or only pinned copies are left); a larger one lets the next sync fetch
// the copies that did not fit.
func (c *Cache) SetBudget(budget int64) error {
	if budget <= 0 {
		return fmt.Errorf("replica: a budget of %d bytes for the small copies", budget)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget = budget
	return c.evict(0, time.Time{}, true)
}

// evict removes unpinned copies, least recently viewed first (and only
// those viewed before before, unless it is zero), until size more bytes fit
// in the budget. When they cannot be made to fit it removes what it can if
// partial, else nothing, and returns ErrCacheFull. Called with c.mu held.
func (c *Cache) evict(size int64, before time.Time, partial bool) error {
	if c.total+size <= c.budget {
		return nil
	}
	type cand struct {
		sha string
		e   *cacheEntry
	}
	var cands []cand
	for sha, e := range c.entries {
		if c.pins[sha] == 0 && (before.IsZero() || e.used.Before(before)) {
			cands = append(cands, cand{sha, e})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if !cands[i].e.used.Equal(cands[j].e.used) {
			return cands[i].e.used.Before(cands[j].e.used)
		}
		return cands[i].sha < cands[j].sha
	})
	free, k := c.budget-c.total, 0
	for ; k < len(cands) && free < size; k++ {
		free += cands[k].e.size
	}
	if free < size && !partial {
		return ErrCacheFull
	}
	for _, cd := range cands[:k] {
		if err := os.Remove(filepath.Join(c.dir, cd.sha)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("replica: evict %s: %w", cd.sha, err)
		}
		delete(c.entries, cd.sha)
		c.total -= cd.e.size
	}
	return nil
}

// Remove removes the copy with SHA-256 sha, pinned or not: the engine
// removed it for good (a purged moment's). One not cached is nothing to
// do.
func (c *Cache) Remove(sha string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[sha]
	if e == nil {
		return nil
	}
	if err := os.Remove(filepath.Join(c.dir, sha)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("replica: remove %s: %w", sha, err)
	}
	delete(c.entries, sha)
	c.total -= e.size
	return nil
}

// clear removes every copy (the replica is dropped for another engine's).
func (c *Cache) clear() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for sha := range c.entries {
		if err := os.Remove(filepath.Join(c.dir, sha)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("replica: remove %s: %w", sha, err)
		}
	}
	c.entries = map[string]*cacheEntry{}
	c.total = 0
	return nil
}
