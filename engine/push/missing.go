package push

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// Missing counts the live moments of the engine folder src that the
// target does not show as live, without sending anything:
// what a push would bring along.
func Missing(ctx context.Context, src string, t Target) (int, error) {
	f, err := OpenFolder(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return MissingFrom(ctx, f, t)
}

// MissingFrom counts the live moments of src that the target does not
// show as live, without sending anything. It reads src's log, keeping the
// live moment ids, and the target's moments page by page.
func MissingFrom(ctx context.Context, src Source, t Target) (int, error) {
	if _, _, err := src.Describe(ctx); err != nil {
		return 0, err
	}
	live := map[string]bool{}
	made := map[string]bool{}
	err := src.Scan(ctx, 0, func(r oplog.Record) error {
		switch r.Op {
		case api.OpMomentCreate:
			var d mirror.MomentCreate
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return fmt.Errorf("op %d: %w", r.Seq, err)
			}
			live[d.ID], made[d.ID] = true, true
		case api.OpMomentEdit:
			// An edit brings a deleted moment back, as the fold does.
			var d mirror.MomentEdit
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return fmt.Errorf("op %d: %w", r.Seq, err)
			}
			if made[d.ID] {
				live[d.ID] = true
			}
		case api.OpMomentDelete:
			var d mirror.MomentDelete
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return fmt.Errorf("op %d: %w", r.Seq, err)
			}
			delete(live, d.ID)
		case api.OpMomentRestore:
			var d mirror.MomentRestore
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return fmt.Errorf("op %d: %w", r.Seq, err)
			}
			live[d.ID] = true
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("push: read the source's log: %w", err)
	}
	before := ""
	for len(live) > 0 {
		page, next, err := t.Moments(ctx, api.MaxPageLimit, before)
		if err != nil {
			return 0, fmt.Errorf("push: list the target's moments: %w", err)
		}
		for _, m := range page {
			delete(live, m.ID)
		}
		if next == nil {
			break
		}
		before = *next
	}
	return len(live), nil
}
