package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/backup"
)

// offsiteEvery is how long the keeper of the engine on this computer
// waits between two passes; 0 is backup.DefaultInterval. Tests shorten it.
var offsiteEvery time.Duration

// keeperSlot runs the off-site copy's Keeper beside the engine on this
// computer, one at a time, and is the server's source of the copy's
// health (server.Options.Backup): nil while no copy is set up. A keeper
// is replaced whole when Dad chooses another place, so a pass never
// ships half to one target and half to another.
type keeperSlot struct {
	log *slog.Logger

	// runMu makes the changes one at a time; mu guards k alone, so that
	// Health never waits for a pass to end (a health check is quick).
	runMu sync.Mutex
	stop  context.CancelFunc
	done  chan struct{}

	mu sync.Mutex
	k  *backup.Keeper
}

// Health implements server.BackupHealther: the running keeper's, or nil.
func (s *keeperSlot) Health() *api.BackupHealth {
	s.mu.Lock()
	k := s.k
	s.mu.Unlock()
	if k == nil {
		return nil
	}
	return k.Health()
}

// run stops the keeper running, waiting for its pass to end, and starts
// one shipping eng's folder to t, encrypted with the folder's key (made
// on first use); a nil t (or eng) starts none.
func (s *keeperSlot) run(eng *engine.Engine, t backup.Target) error {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	s.set(nil)
	if s.stop != nil {
		s.stop()
		<-s.done
		s.stop, s.done = nil, nil
	}
	if eng == nil || t == nil {
		return nil
	}
	key, _, err := backup.LoadOrCreateKey(eng.Dir())
	if err != nil {
		return fmt.Errorf("make the off-site copy's key: %w", err)
	}
	k := &backup.Keeper{
		Shipper: &backup.Shipper{Dir: eng.Dir(), Target: t, Key: key, Interval: offsiteEvery, Logger: s.log},
		LogSeq:  eng.LastSeq,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.stop, s.done = cancel, done
	s.set(k)
	s.log.Info("off-site copy: keeping it", "target", t.String())
	go func() {
		defer close(done)
		_ = k.Run(ctx) // ends with ctx; each pass's failure is in Health and the log
	}()
	return nil
}

// kick asks the running keeper for a pass soon: the engine logged a
// batch, and an op is in the copy seconds after it is answered.
func (s *keeperSlot) kick(int, time.Duration) {
	s.mu.Lock()
	k := s.k
	s.mu.Unlock()
	if k != nil {
		k.Kick()
	}
}

func (s *keeperSlot) set(k *backup.Keeper) {
	s.mu.Lock()
	s.k = k
	s.mu.Unlock()
}

// failingSpell remembers since when the off-site copy of an engine has
// been failing: the engine's word when its health says (failing_since),
// else, from an engine older than that word, since when Status first saw
// it failing.
type failingSpell struct {
	mu     sync.Mutex
	engine string
	since  time.Time
}

// seen notes the copy's health h of the engine at url and returns since
// when it has been failing (RFC 3339), "" when it is not.
func (f *failingSpell) seen(url string, h *api.BackupHealth) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h == nil || (h.State != api.BackupFailing && h.State != api.BackupCheckFailed) {
		f.engine, f.since = "", time.Time{}
		return ""
	}
	if h.FailingSince != nil {
		f.engine, f.since = url, *h.FailingSince
	} else if f.engine != url || f.since.IsZero() {
		f.engine, f.since = url, time.Now()
	}
	return f.since.UTC().Format(time.RFC3339)
}
