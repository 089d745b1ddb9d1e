package view

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
)

// Corpus is what the window reads: the moments, a moment with its
// readings, one reading, the kept phrases, a search, and the small copies.
// It has two sources:
//
//   - the engine on this computer (EngineCorpus), read over loopback: its
//     own mirror is the local copy, so it needs no network;
//   - the replica of the family engine (ReplicaCorpus), kept on this
//     computer by app's sync (app/sync.go): read with the family engine
//     gone.
//
// Writes do not go through it: they go to the engine (or the outbox).
type Corpus interface {
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

// EngineCorpus reads from an engine through its client: the engine on this
// computer, over loopback.
type EngineCorpus struct{ Client *client.Client }

func (c EngineCorpus) Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.Client.Moments(ctx, limit, before)
}

func (c EngineCorpus) DeletedMoments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.Client.DeletedMoments(ctx, limit, before)
}

func (c EngineCorpus) Moment(ctx context.Context, id string) (*api.Moment, error) {
	return c.Client.Moment(ctx, id)
}

func (c EngineCorpus) Turn(ctx context.Context, id string) (*api.Turn, error) {
	return c.Client.Turn(ctx, id)
}

func (c EngineCorpus) Phrases(ctx context.Context) ([]api.Phrase, error) {
	return c.Client.Phrases(ctx)
}

func (c EngineCorpus) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	return c.Client.Search(ctx, q, limit)
}

func (c EngineCorpus) LocalMedia(context.Context, string) (*os.File, string, bool) {
	return nil, "", false
}

// ReplicaCorpus reads from the replica of the family engine. What the
// replica does not hold yet (a note just written, a reading just asked,
// before the sync brings their ops) is asked of the family engine, when it
// answers.
type ReplicaCorpus struct {
	Replica *replica.Replica
	Client  *client.Client // the family engine
}

// notHeld reports an answer of the replica that the engine may know better.
func notHeld(err error) bool { return errors.Is(err, replica.ErrNotFound) }

// notFound is the replica's "no such thing" as the engine would say it.
func notFound() error {
	return &api.Error{Status: 404, Code: api.CodeNotFound, Message: "This is not on this computer yet, and the family engine can't be reached to fetch it."}
}

func (c ReplicaCorpus) Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.Replica.MomentsPage(ctx, limit, before)
}

func (c ReplicaCorpus) DeletedMoments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.Replica.DeletedPage(ctx, time.Now().Add(-api.RecentlyDeletedFor), limit, before)
}

func (c ReplicaCorpus) Moment(ctx context.Context, id string) (*api.Moment, error) {
	mo, err := c.Replica.Moment(ctx, id)
	if notHeld(err) {
		if mo, eerr := c.Client.Moment(ctx, id); eerr == nil {
			return mo, nil
		} else if _, ok := api.AsError(eerr); ok {
			return nil, eerr
		}
		return nil, notFound()
	}
	return mo, err
}

func (c ReplicaCorpus) Turn(ctx context.Context, id string) (*api.Turn, error) {
	t, err := c.Replica.Turn(ctx, id)
	if notHeld(err) {
		if t, eerr := c.Client.Turn(ctx, id); eerr == nil {
			return t, nil
		} else if _, ok := api.AsError(eerr); ok {
			return nil, eerr
		}
		return nil, notFound()
	}
	return t, err
}

func (c ReplicaCorpus) Phrases(ctx context.Context) ([]api.Phrase, error) {
	return c.Replica.Phrases(ctx)
}

func (c ReplicaCorpus) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	return c.Replica.Search(ctx, q, limit)
}

func (c ReplicaCorpus) LocalMedia(ctx context.Context, id string) (*os.File, string, bool) {
	md, err := c.Replica.Media(ctx, id)
	if err != nil || md.Role != api.RoleCopy {
		return nil, "", false
	}
	f, err := c.Replica.Copies().View(md.SHA256)
	if err != nil {
		return nil, "", false
	}
	return f, md.ContentType, true
}
