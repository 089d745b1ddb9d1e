package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// purgeBatch is how many moments one moment.purge batch holds: their keys
// are held together while the batch is logged.
const purgeBatch = 64

// keepDeleted is how long the engine keeps a deleted moment in Recently
// deleted before it purges it (Config.KeepDeleted); zero or less: never.
func (e *Engine) keepDeleted() time.Duration {
	if e.cfg.KeepDeleted == 0 {
		return api.RecentlyDeletedFor
	}
	return e.cfg.KeepDeleted
}

// blobKey is the lock of the stored bytes with that SHA-256: held by a put
// from the commit of its bytes until its media.put is folded, and by the
// removal of the bytes a purge left, so that no removal takes bytes a put
// has just stored again.
func blobKey(sha string) lockKey { return keyOf("blob:", sha) }

// purge removes for good the moments deleted longer ago than the engine
// keeps them: it logs a moment.purge for each, the engine's own op, then
// removes from the store the blobs the purges left named by no media
// record. It returns how many moments it purged. Run when the engine opens
// (before Open returns) and at each round of the housekeeping goroutine;
// a crash
// between the ops and the removals is mended by the next round, since the
// blobs to remove are a fold of the log (mirror.EachGone).
func (e *Engine) purge(ctx context.Context) (int, error) {
	n := 0
	oldest, waiting, err := e.mirror.OldestDeleted(ctx)
	if err != nil {
		return 0, fmt.Errorf("engine: purge: %w", err)
	}
	// The clock is read only when a deleted moment waits: an engine with
	// none (every test's, most of the time) never reads it here.
	if keep := e.keepDeleted(); keep > 0 && waiting && oldest.Before(e.cfg.Now().Add(-keep)) {
		before := e.cfg.Now().Add(-keep)
		for {
			ids, err := e.mirror.PurgeDue(ctx, before, purgeBatch)
			if err != nil {
				return n, fmt.Errorf("engine: purge: %w", err)
			}
			if len(ids) == 0 {
				break
			}
			done, err := e.purgeMoments(ctx, ids, before)
			n += done
			if err != nil {
				return n, err
			}
			if done == 0 {
				break // each was restored or purged meanwhile; the next round looks again
			}
		}
	}
	return n, e.removeGone(ctx)
}

// purgeMoments logs a moment.purge for each of ids still deleted since
// before, holding their keys, and returns how many it logged.
func (e *Engine) purgeMoments(ctx context.Context, ids []string, before time.Time) (int, error) {
	keys := make([]lockKey, len(ids))
	for i, id := range ids {
		keys[i] = momentKey(id)
	}
	unlock, err := e.keys.lock(ctx, keys...)
	if err != nil {
		return 0, err
	}
	defer unlock()
	if err := e.awaitFold(ctx); err != nil {
		return 0, err
	}
	var recs []oplog.Record
	for _, id := range ids {
		mo, err := e.mirror.Moment(ctx, id)
		if isNotFound(err) {
			continue // purged meanwhile
		}
		if err != nil {
			return 0, fmt.Errorf("engine: purge: %w", err)
		}
		if mo.DeletedAt == nil || !mo.DeletedAt.Before(before) {
			continue // restored, or deleted again, meanwhile
		}
		rec, err := record(api.OpMomentPurge, "", mirror.MomentPurge{ID: id})
		if err != nil {
			return 0, err
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return 0, nil
	}
	if err := e.appendOps(ctx, recs...); err != nil {
		return 0, fmt.Errorf("engine: purge: %w", err)
	}
	e.logger.Info("engine: removed for good the moments deleted long ago", "moments", len(recs), "deleted_before", before)
	return len(recs), nil
}

// removeGone removes from the store every blob a purge left named by no
// media record; one already gone is nothing to do.
func (e *Engine) removeGone(ctx context.Context) error {
	removed := 0
	err := e.mirror.EachGone(ctx, func(sha string) error {
		unlock, err := e.keys.lock(ctx, blobKey(sha))
		if err != nil {
			return err
		}
		defer unlock()
		// Under the key, a put of the same bytes has been folded: it takes
		// them out of the gone ones.
		gone, err := e.mirror.Gone(ctx, sha)
		if err != nil || !gone {
			return err
		}
		ok, err := e.media.Remove(sha)
		if err != nil {
			return err
		}
		if ok {
			removed++
		}
		return nil
	})
	if removed > 0 {
		e.logger.Info("engine: removed the photos of moments removed for good", "blobs", removed)
	}
	if err != nil {
		return fmt.Errorf("engine: remove the photos of purged moments: %w", err)
	}
	return nil
}
