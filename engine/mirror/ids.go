package mirror

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"
)

// idSet holds a 64-bit hash of every request id and moment id the mirror
// holds, so that the engine's write checks learn that an id is new (the
// common case: every fresh create) without a SQLite read. It may hold more
// than the tables (a fold whose transaction then failed, or a hash shared
// by two ids), never less, so only a miss is trusted: a hit is confirmed
// by the table. It is loaded from the tables at Open and grown by the fold
// before its transaction commits; rows of these tables are never deleted.
type idSet struct {
	seed     maphash.Seed
	mu       sync.RWMutex
	requests map[uint64]struct{}
	moments  map[uint64]struct{}
}

func newIDSet() *idSet {
	return &idSet{seed: maphash.MakeSeed(), requests: make(map[uint64]struct{}), moments: make(map[uint64]struct{})}
}

func (s *idSet) hash(id string) uint64 { return maphash.String(s.seed, id) }

// mayHold reports whether set (requests or moments) may hold id; false
// means the table surely does not. A nil idSet may hold anything.
func (s *idSet) mayHold(set func(*idSet) map[uint64]struct{}, id string) bool {
	if s == nil {
		return true
	}
	h := s.hash(id)
	s.mu.RLock()
	_, ok := set(s)[h]
	s.mu.RUnlock()
	return ok
}

func (s *idSet) add(set func(*idSet) map[uint64]struct{}, id string) {
	if s == nil {
		return
	}
	h := s.hash(id)
	s.mu.Lock()
	set(s)[h] = struct{}{}
	s.mu.Unlock()
}

// addRun adds the moment ids and request ids of a run of creates under one
// lock, as add does each.
func (s *idSet) addRun(c *createRun) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range c.recs {
		s.moments[s.hash(c.data[i].ID)] = struct{}{}
		if r.RequestID != "" {
			s.requests[s.hash(r.RequestID)] = struct{}{}
		}
	}
}

func requestIDs(s *idSet) map[uint64]struct{} { return s.requests }
func momentIDs(s *idSet) map[uint64]struct{}  { return s.moments }

// loadIDs fills the set from the requests and moments tables.
func (m *DB) loadIDs(ctx context.Context) error {
	s := newIDSet()
	for _, t := range []struct {
		query string
		set   func(*idSet) map[uint64]struct{}
	}{
		{"SELECT id FROM requests", requestIDs},
		{"SELECT id FROM moments", momentIDs},
	} {
		rows, err := m.w.QueryContext(ctx, t.query)
		if err != nil {
			return fmt.Errorf("mirror %s: load the id index: %w", m.path, err)
		}
		set := t.set(s)
		var id string
		for rows.Next() {
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("mirror %s: load the id index: %w", m.path, err)
			}
			set[s.hash(id)] = struct{}{}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("mirror %s: load the id index: %w", m.path, err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("mirror %s: load the id index: %w", m.path, err)
		}
	}
	m.ids = s
	return nil
}
