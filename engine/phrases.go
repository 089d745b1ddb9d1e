package engine

import (
	"context"
	"strings"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// KeepPhrase keeps a phrase (an active mark), its id derived from the text,
// for the actor's member. Keeping a phrase already kept returns the mark
// (created false) and writes nothing, whoever keeps it: a phrase is one
// mark, and it stays the member's who kept it first (its Member says
// whose), who alone (or an admin) may remove it.
func (e *Engine) KeepPhrase(ctx context.Context, req api.KeepPhraseRequest) (*api.Phrase, bool, error) {
	id, err := api.PhraseID(req.Text)
	if err != nil {
		return nil, false, err
	}
	momentID, err := optionalULID("moment_id", req.MomentID)
	if err != nil {
		return nil, false, err
	}
	unlock, err := e.keys.lock(ctx, phraseKey(id))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	p, err := e.mirror.Phrase(ctx, id)
	switch {
	case err == nil:
		return p, false, nil
	case !isNotFound(err):
		return nil, false, err
	}
	if momentID != "" {
		if _, err := e.mirror.MomentRefs(ctx, momentID); isNotFound(err) {
			return nil, false, api.Errorf(api.CodeUnknownMoment, "no moment has the id %s; keep the phrase without moment_id or name the moment it came from", momentID)
		} else if err != nil {
			return nil, false, err
		}
	}
	// The text is kept as written, its white space collapsed; the id is
	// its normalized form.
	text := strings.Join(strings.Fields(req.Text), " ")
	rec, err := record(api.OpPhraseKeep, "", mirror.PhraseKeep{ID: id, Text: text, MomentID: momentID})
	if err != nil {
		return nil, false, err
	}
	if err := e.appendOps(ctx, rec); err != nil {
		return nil, false, err
	}
	p, err = e.mirror.Phrase(ctx, id)
	return p, true, err
}

// Phrases returns the active marks, oldest first.
func (e *Engine) Phrases(ctx context.Context) ([]api.Phrase, error) {
	if err := e.awaitFold(ctx); err != nil {
		return nil, err
	}
	return e.mirror.Phrases(ctx)
}

// RemovePhrase removes the mark id: true when it was kept, false (nothing
// written) when it was not. Only the member who kept it, or an admin, may
// remove it; another member gets CodeForbidden.
func (e *Engine) RemovePhrase(ctx context.Context, id string) (bool, error) {
	if err := api.CheckPhraseID(id); err != nil {
		return false, err
	}
	unlock, err := e.keys.lock(ctx, phraseKey(id))
	if err != nil {
		return false, err
	}
	defer unlock()
	p, err := e.mirror.Phrase(ctx, id)
	if isNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if !actorOf(ctx).mayChange(p.Member) {
		return false, phraseNotYours(p)
	}
	rec, err := record(api.OpPhraseUnkeep, "", mirror.PhraseUnkeep{ID: id})
	if err != nil {
		return false, err
	}
	if err := e.appendOps(ctx, rec); err != nil {
		return false, err
	}
	return true, nil
}

// phraseNotYours is the error of a device token refused the removal of a
// phrase another member keeps.
func phraseNotYours(p *api.Phrase) error {
	if p.Member == "" {
		return api.Errorf(api.CodeForbidden, "the phrase %q was kept before Spark knew who keeps what; only the engine's owner, with an admin token, may remove it", p.Text)
	}
	return api.Errorf(api.CodeForbidden, "the phrase %q is kept by %s, another family member; only they, or the engine's owner with an admin token, may remove it", p.Text, p.Member)
}
