package app

import (
	"context"
	"strings"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// Phrases keeps phrases from Pippa's readings and runs quick recalls.
type Phrases struct{ a *App }

// List returns the kept phrases, with what Dad did that the engine does
// not have yet (view.Reads.Phrases).
func (p *Phrases) List() ([]view.Phrase, error) {
	return p.a.reads(p.a.state()).Phrases(context.Background())
}

// Keep keeps a phrase selected in a reading of momentID ("" for none),
// through the outbox.
func (p *Phrases) Keep(text, momentID string) (view.Phrase, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return view.Phrase{}, refused(CodeNoWords, "")
	}
	if momentID != "" {
		id, err := checkMomentID(momentID)
		if err != nil {
			return view.Phrase{}, err
		}
		momentID = id
	}
	w, err := outbox.NewKeep(text, momentID)
	if err != nil {
		return view.Phrase{}, &UIError{Code: CodeBadPhrase, Detail: toUIError(err).Detail}
	}
	st := p.a.state()
	got, err := p.a.send(context.Background(), st, w)
	if err != nil {
		return view.Phrase{}, err
	}
	var ph api.Phrase
	if sent(got, &ph) && ph.ID != "" {
		return view.PhraseView(ph, st.viewer()), nil
	}
	v := view.KeepView(got)
	v.WaitsFor = st.waitsFor()
	return v, nil
}

// Remove removes a kept phrase, through the outbox.
func (p *Phrases) Remove(id string) (bool, error) {
	if err := api.CheckPhraseID(id); err != nil {
		return false, err
	}
	got, err := p.a.send(context.Background(), p.a.state(), outbox.NewUnkeep(id))
	if err != nil {
		return false, err
	}
	var removed bool
	if sent(got, &removed) {
		return removed, nil
	}
	return true, nil // hidden at once; sent when the engine is back
}

// Recall starts a quick recall over the kept phrases; recallID is minted
// by the UI, so a repeat returns the same recall. Follow its reading with
// Moments.Reading. While it waits on this computer WaitsFor says so and
// Reading is empty.
func (p *Phrases) Recall(recallID string) (view.Recall, error) {
	if err := api.CheckRecallID(recallID); err != nil {
		return view.Recall{}, err
	}
	st := p.a.state()
	got, err := p.a.send(context.Background(), st, outbox.NewRecall(recallID))
	if err != nil {
		return view.Recall{}, err
	}
	var res outbox.RecallResult
	if !sent(got, &res) || res.Turn == nil {
		return view.Recall{WaitsFor: st.waitsFor()}, nil
	}
	r := view.Recall{Reading: view.ReadingView(*res.Turn)}
	if res.Moment != nil {
		r.MomentID = res.Moment.ID
	}
	return r, nil
}
