package replica

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sparkfamily/spark/engine/api"
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

// MomentsPage returns up to limit live moments older than before ("" for
// the newest), newest first, as GET /v1/moments pages them: limit 0 is
// api.DefaultPageLimit, more than api.MaxPageLimit is that; next is the
// cursor of the following page, nil at the end.
func (r *Replica) MomentsPage(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return r.page(ctx, limit, before, func(db *mirror.DB, limit int) ([]api.Moment, bool, error) {
		return db.Moments(ctx, limit, before)
	})
}

// DeletedPage is MomentsPage of Recently deleted: the moments deleted at
// since or after.
func (r *Replica) DeletedPage(ctx context.Context, since time.Time, limit int, before string) ([]api.Moment, *string, error) {
	return r.page(ctx, limit, before, func(db *mirror.DB, limit int) ([]api.Moment, bool, error) {
		return db.DeletedMoments(ctx, since, limit, before)
	})
}

// page reads one page of moments with list, for MomentsPage and
// DeletedPage.
func (r *Replica) page(ctx context.Context, limit int, before string, list func(*mirror.DB, int) ([]api.Moment, bool, error)) ([]api.Moment, *string, error) {
	if limit <= 0 {
		limit = api.DefaultPageLimit
	}
	limit = min(limit, api.MaxPageLimit)
	db := r.mirror()
	defer r.dbMu.RUnlock()
	page, more, err := list(db, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("replica: %w", err)
	}
	if !more || len(page) == 0 {
		return page, nil, nil
	}
	next := page[len(page)-1].ID
	return page, &next, nil
}

// Turn returns one turn (a reading), or an error matching ErrNotFound.
func (r *Replica) Turn(ctx context.Context, id string) (*api.Turn, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	t, err := db.Turn(ctx, id)
	if err != nil {
		if errors.Is(err, mirror.ErrNotFound) {
			return nil, fmt.Errorf("replica: no reading %s on this computer: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("replica: %w", err)
	}
	return &t.Turn, nil
}

// Media returns the record of one media file (its moment, role, SHA-256
// and size), or an error matching ErrNotFound.
func (r *Replica) Media(ctx context.Context, id string) (*api.Media, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	md, err := db.Media(ctx, id)
	if err != nil {
		if errors.Is(err, mirror.ErrNotFound) {
			return nil, fmt.Errorf("replica: no file %s on this computer: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("replica: %w", err)
	}
	return md, nil
}

// Reading reports whether a reading is queued or running (started and not
// finished) in the replica: the app syncs more often while one is.
func (r *Replica) Reading(ctx context.Context) (bool, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	ids, err := db.OpenTurns(ctx)
	if err != nil {
		return false, fmt.Errorf("replica: %w", err)
	}
	return len(ids) > 0, nil
}

// Search finds the live moments whose caption, readings or kept phrases
// hold every word of q, up to limit moments, from the replica's full-text
// index: the answer GET /v1/search gives, grouped by the same code
// (mirror.SearchMoments), with no network.
func (r *Replica) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	if limit <= 0 {
		limit = api.DefaultPageLimit
	}
	limit = min(limit, api.MaxPageLimit)
	db := r.mirror()
	defer r.dbMu.RUnlock()
	out, err := db.SearchMoments(ctx, q, limit, func(ctx context.Context, id string) (*api.Moment, error) {
		mo, err := db.Moment(ctx, id)
		if errors.Is(err, mirror.ErrNotFound) {
			return nil, nil
		}
		return mo, err
	})
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	return out, nil
}
