package replica

import (
	"context"
	"errors"
	"fmt"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// ErrNotFound is returned for an id the replica does not hold.
var ErrNotFound = mirror.ErrNotFound

// momentsPage is how many moments one read of the mirror takes.
const momentsPage = 200

// Moments returns every live moment the replica holds, newest first, with
// their media records and turns (a turn a worker is running shows queued,
// as in the engine's mirror).
func (r *Replica) Moments(ctx context.Context) ([]api.Moment, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	var all []api.Moment
	before := ""
	for {
		page, more, err := db.Moments(ctx, momentsPage, before)
		if err != nil {
			return nil, fmt.Errorf("replica: %w", err)
		}
		all = append(all, page...)
		if !more || len(page) == 0 {
			return all, nil
		}
		before = page[len(page)-1].ID
	}
}

// Moment returns one moment, deleted ones too, or an error matching
// ErrNotFound.
func (r *Replica) Moment(ctx context.Context, id string) (*api.Moment, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	mo, err := db.Moment(ctx, id)
	if err != nil {
		if errors.Is(err, mirror.ErrNotFound) {
			return nil, fmt.Errorf("replica: no moment %s on this computer: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("replica: %w", err)
	}
	return mo, nil
}

// Phrases returns the kept phrases the replica holds.
func (r *Replica) Phrases(ctx context.Context) ([]api.Phrase, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	ps, err := db.Phrases(ctx)
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	return ps, nil
}

// Diff compares the replica's mirror with another mirror table by table
// (mirror.Diff) and returns the differences, at most max per table.
func (r *Replica) Diff(ctx context.Context, other *mirror.DB, max int) ([]string, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	return mirror.Diff(ctx, other, db, max)
}
