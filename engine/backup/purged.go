package backup

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// A photo the engine removed for good (moment.purge) before a pass could
// ship it is not in the folder any more, and never will be: the pass ships
// the segments that name it without it, and a restore lets it be missing
// from the copy when the part of the log it restores purges its moment.
// A photo missing for any other reason stops the pass, or the restore, as
// it always did.

// purgedSet is the moments a log purges, read on demand.
type purgedSet struct {
	mu  sync.Mutex
	ids map[string]bool
}

// has says whether the log of dir purges moment id. A miss reads the
// log again, from its start: a photo found missing is rare (its moment
// was purged before a pass shipped it), and the log read answers for
// every other one.
func (p *purgedSet) has(ctx context.Context, dir, id string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids[id] {
		return true, nil
	}
	ids, err := purgedIn(ctx, filepath.Join(dir, engine.LogFile))
	if err != nil {
		return false, err
	}
	p.ids = ids
	return ids[id], nil
}

// purgedIn reads the log at path and returns the moments it purges.
func purgedIn(ctx context.Context, path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("backup: read %s: %w", path, err)
	}
	defer f.Close()
	ids := map[string]bool{}
	rd := oplog.NewReader(f, path, 0)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, _, _, err := rd.Next()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			// A write in flight at the end: what came before is whole.
			if rd.LastSeq() > 0 {
				return ids, nil
			}
			return nil, fmt.Errorf("backup: read %s: %w", path, err)
		}
		if id, ok := purgeOf(rec); ok {
			ids[id] = true
		}
	}
}

// purgeOf returns the moment a moment.purge record names.
func purgeOf(rec oplog.Record) (string, bool) {
	if rec.Op != api.OpMomentPurge {
		return "", false
	}
	var d mirror.MomentPurge
	if json.Unmarshal(rec.Data, &d) != nil || d.ID == "" {
		return "", false
	}
	return d.ID, true
}
