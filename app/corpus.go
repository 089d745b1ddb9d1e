package app

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
)

// corpus is what the window reads: the moments, a moment with its
// readings, one reading, the kept phrases, a search, and the small copies.
// It has two sources:
//
//   - the engine on this computer (engineCorpus), read over loopback: its
//     own mirror is the local copy, so it needs no network;
//   - the replica of the family engine (replicaCorpus), kept on this
//     computer by the sync (sync.go): read with the family engine gone.
//
// Writes do not go through it: they go to the engine (or the outbox).
type corpus interface {
	// Moments returns a page of live moments older than before ("" for
	// the newest), newest first; next is nil at the end.
	Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error)
	// DeletedMoments returns a page of Recently deleted: the moments
	// deleted in the last api.RecentlyDeletedFor, as Moments pages.
	DeletedMoments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error)
	// Moment returns one moment, a deleted one too (DeletedAt set).
	Moment(ctx context.Context, id string) (*api.Moment, error)
	// Turn returns one reading.
	Turn(ctx context.Context, id string) (*api.Turn, error)
	// Phrases returns the kept phrases.
	Phrases(ctx context.Context) ([]api.Phrase, error)
	// Search finds the moments and phrases holding every word of q.
	Search(ctx context.Context, q string, limit int) (*api.SearchResults, error)
	// LocalMedia opens media file id when this computer holds it (a small
	// copy in the replica's cache), marking it viewed; ok is false when
	// it must come from the engine (an original, fetched on demand, or a
	// copy not cached). The caller closes f.
	LocalMedia(ctx context.Context, id string) (f *os.File, contentType string, ok bool)
}

// engineCorpus reads from an engine through its client: the engine on this
// computer, over loopback.
type engineCorpus struct{ cl *client.Client }

func (c engineCorpus) Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.cl.Moments(ctx, limit, before)
}

func (c engineCorpus) DeletedMoments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.cl.DeletedMoments(ctx, limit, before)
}

func (c engineCorpus) Moment(ctx context.Context, id string) (*api.Moment, error) {
	return c.cl.Moment(ctx, id)
}

func (c engineCorpus) Turn(ctx context.Context, id string) (*api.Turn, error) {
	return c.cl.Turn(ctx, id)
}

func (c engineCorpus) Phrases(ctx context.Context) ([]api.Phrase, error) { return c.cl.Phrases(ctx) }

func (c engineCorpus) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	return c.cl.Search(ctx, q, limit)
}

func (c engineCorpus) LocalMedia(context.Context, string) (*os.File, string, bool) {
	return nil, "", false
}

// replicaCorpus reads from the replica of the family engine. What the
// replica does not hold yet (a note just written, a reading just asked,
// before the sync brings their ops) is asked of the family engine, when it
// answers.
type replicaCorpus struct {
	rep *replica.Replica
	cl  *client.Client // the family engine
}

// notHeld reports an answer of the replica that the engine may know better.
func notHeld(err error) bool { return errors.Is(err, replica.ErrNotFound) }

// notFound is the replica's "no such thing" as the engine would say it.
func notFound() error {
	return &api.Error{Status: 404, Code: api.CodeNotFound, Message: "This is not on this computer yet, and the family engine can't be reached to fetch it."}
}

func (c replicaCorpus) Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.rep.MomentsPage(ctx, limit, before)
}

func (c replicaCorpus) DeletedMoments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.rep.DeletedPage(ctx, time.Now().Add(-api.RecentlyDeletedFor), limit, before)
}

func (c replicaCorpus) Moment(ctx context.Context, id string) (*api.Moment, error) {
	mo, err := c.rep.Moment(ctx, id)
	if notHeld(err) {
		if mo, eerr := c.cl.Moment(ctx, id); eerr == nil {
			return mo, nil
		} else if _, ok := api.AsError(eerr); ok {
			return nil, eerr
		}
		return nil, notFound()
	}
	return mo, err
}

func (c replicaCorpus) Turn(ctx context.Context, id string) (*api.Turn, error) {
	t, err := c.rep.Turn(ctx, id)
	if notHeld(err) {
		if t, eerr := c.cl.Turn(ctx, id); eerr == nil {
			return t, nil
		} else if _, ok := api.AsError(eerr); ok {
			return nil, eerr
		}
		return nil, notFound()
	}
	return t, err
}

func (c replicaCorpus) Phrases(ctx context.Context) ([]api.Phrase, error) {
	return c.rep.Phrases(ctx)
}

func (c replicaCorpus) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	return c.rep.Search(ctx, q, limit)
}

func (c replicaCorpus) LocalMedia(ctx context.Context, id string) (*os.File, string, bool) {
	md, err := c.rep.Media(ctx, id)
	if err != nil || md.Role != api.RoleCopy {
		return nil, "", false
	}
	f, err := c.rep.Copies().View(md.SHA256)
	if err != nil {
		return nil, "", false
	}
	return f, md.ContentType, true
}
