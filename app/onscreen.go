package app

import (
	"context"
	"sync"

	"github.com/sparkfamily/spark/app/replica"
)

// What the window shows, kept in the replica's cache: the Moments screen
// tells which tiles are in view (and the moment dialog which moment is
// open), and their small copies are pinned there, so a smaller limit or a
// sync making room never removes a photo on screen. The others are
// unpinned: they go first when room is needed, least recently viewed
// first. With the engine on this computer nothing is pinned (its copies
// are never evicted).

// maxOnScreen bounds the moments one OnScreen call pins: far more than a
// window shows, so a runaway caller cannot pin the whole cache.
const maxOnScreen = 1000

// shown is the small copies pinned for the window, by SHA-256, in rep's
// cache.
type shown struct {
	mu     sync.Mutex
	rep    *replica.Replica
	pinned map[string]bool
}

// OnScreen says which moments the window shows now (the tiles in view and
// the open moment): their small copies are kept on this computer while
// they show, the ones shown before and not now may make room again. Ids
// of moments this computer's copy does not hold (not sent yet, or not
// synced yet) are passed over.
func (m *Moments) OnScreen(ids []string) error {
	a := m.a
	rep := a.state().familyReplica()
	if len(ids) > maxOnScreen {
		ids = ids[:maxOnScreen]
	}
	want := map[string]bool{}
	if rep != nil {
		ctx := context.Background()
		for _, id := range ids {
			mo, err := rep.Moment(ctx, id)
			if err != nil || mo.Copy == nil || mo.Copy.SHA256 == "" {
				continue
			}
			want[mo.Copy.SHA256] = true
		}
	}
	a.shown.pin(rep, want)
	return nil
}

// pin makes want the copies pinned in rep's cache: the new ones pinned,
// the ones no longer wanted unpinned. Pins held in a replica since closed
// are forgotten with it.
func (s *shown) pin(rep *replica.Replica, want map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rep != nil && s.rep != rep {
		// Another replica (or none): unpin in the old one, which is still
		// open when Spark switched to the engine on this computer.
		for sha := range s.pinned {
			s.rep.Copies().Unpin(sha)
		}
		s.pinned = nil
	}
	s.rep = rep
	if rep == nil {
		return
	}
	c := rep.Copies()
	for sha := range want {
		if !s.pinned[sha] {
			c.Pin(sha)
		}
	}
	for sha := range s.pinned {
		if !want[sha] {
			c.Unpin(sha)
		}
	}
	s.pinned = want
}
