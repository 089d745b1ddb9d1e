package push

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// Moments removed for good. A moment the source purged (moment.purge, the
// engine's own op for a moment deleted long ago) has no photos left to
// send: a push leaves it out whole, so that it does not come back on the
// target, not even as a deleted moment without its photo. Before a
// worker sends a moment's create it asks the source whether the moment
// is purged (Source.Purged); the moment's later ops go to the same worker
// and are left out with it. A phrase kept from it is kept without it. A
// photo of a moment created before the checkpoint (pushed by an earlier
// run) that the source no longer holds is left out when its moment is
// purged.

// purgedIn reads the log l once and returns the moments it purges.
func purgedIn(ctx context.Context, l *oplog.Log) (map[string]bool, error) {
	ids := map[string]bool{}
	err := l.Scan(ctx, 0, func(r oplog.Record) error {
		if r.Op != api.OpMomentPurge {
			return nil
		}
		var d mirror.MomentPurge
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return fmt.Errorf("the source log's op %d (%s) does not read: %w", r.Seq, r.Op, err)
		}
		ids[d.ID] = true
		return nil
	})
	return ids, err
}

// leaveOut says whether the worker leaves j out: the create of a moment
// the source purged (which it remembers), or any later op of one.
func (p *pusher) leaveOut(ctx context.Context, j *job) (bool, error) {
	if j.create != nil {
		purged, err := p.src.Purged(ctx, j.moment)
		if err != nil {
			return false, fmt.Errorf("push: ask the source about moment %s: %w", j.moment, err)
		}
		if !purged {
			return false, nil
		}
		p.mu.Lock()
		p.leftOut[j.moment] = true
		p.stats.Purged++
		p.mu.Unlock()
		return true, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return j.moment != "" && p.leftOut[j.moment], nil
}

// withoutLeftOut drops from a phrase kept the moment it was kept from
// when that moment was left out (the phrase is Dad's; the moment is gone).
func (p *pusher) withoutLeftOut(j *job) {
	if j.keep == nil || j.keep.MomentID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leftOut[j.keep.MomentID] {
		j.keep.MomentID = ""
	}
}

// photoPurged says whether the source, which failed to give the photo m,
// no longer holds it because its moment was purged. A remote source's
// failure is the source's, whatever it says (the error does not tell a
// 404 apart), so the source is asked.
func (p *pusher) photoPurged(ctx context.Context, m *mirror.MediaPut) bool {
	purged, err := p.src.Purged(ctx, m.MomentID)
	return err == nil && purged
}
