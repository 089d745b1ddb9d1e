package app

import (
	"context"
	"strings"
	"sync"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// Phrases keeps phrases from Pippa's readings and runs quick recalls.
type Phrases struct{ a *App }

// List returns the kept phrases.
func (p *Phrases) List() (res []Phrase, err error) {
	st := p.a.state()
	defer p.a.overlayPhrases(st, &res, &err) // what Dad did that the engine does not have yet
	src, err := st.corpus()
	if err != nil {
		return nil, err
	}
	ps, err := src.Phrases(context.Background())
	if err != nil {
		return nil, err
	}
	out := make([]Phrase, len(ps))
	for i, ph := range ps {
		out[i] = phraseView(ph, st.viewer())
	}
	withMoments(context.Background(), src, out)
	return out, nil
}

// withMoments fills each phrase's moment fields, reading each moment once
// (a few at a time). A moment that cannot be read is marked gone.
func withMoments(ctx context.Context, src corpus, ps []Phrase) {
	type info struct {
		thumb, kind, caption string
		gone                 bool
	}
	var ids []string
	seen := map[string]bool{}
	for _, p := range ps {
		if p.MomentID != "" && !seen[p.MomentID] {
			seen[p.MomentID] = true
			ids = append(ids, p.MomentID)
		}
	}
	got := make(map[string]info, len(ids))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var in info
			mo, err := src.Moment(ctx, id)
			if err != nil || mo.DeletedAt != nil {
				in.gone = true
			} else {
				v := momentView(mo, viewer{}) // only its copy, kind and caption
				in = info{thumb: v.Thumb, kind: v.Kind, caption: v.Caption}
			}
			mu.Lock()
			got[id] = in
			mu.Unlock()
		}()
	}
	wg.Wait()
	for i := range ps {
		if in, ok := got[ps[i].MomentID]; ok {
			ps[i].MomentThumb, ps[i].MomentKind, ps[i].MomentCaption, ps[i].MomentGone = in.thumb, in.kind, in.caption, in.gone
		}
	}
}

// Keep keeps a phrase selected in a reading of momentID ("" for none),
// through the outbox.
func (p *Phrases) Keep(text, momentID string) (Phrase, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Phrase{}, refused(CodeNoWords, "")
	}
	if momentID != "" {
		id, err := checkMomentID(momentID)
		if err != nil {
			return Phrase{}, err
		}
		momentID = id
	}
	w, err := outbox.NewKeep(text, momentID)
	if err != nil {
		return Phrase{}, &UIError{Code: CodeBadPhrase, Detail: toUIError(err).Detail}
	}
	st := p.a.state()
	got, err := p.a.send(context.Background(), st, w)
	if err != nil {
		return Phrase{}, err
	}
	var ph api.Phrase
	if sent(got, &ph) && ph.ID != "" {
		return phraseView(ph, st.viewer()), nil
	}
	v := keepView(got)
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
func (p *Phrases) Recall(recallID string) (Recall, error) {
	if err := api.CheckRecallID(recallID); err != nil {
		return Recall{}, err
	}
	st := p.a.state()
	got, err := p.a.send(context.Background(), st, outbox.NewRecall(recallID))
	if err != nil {
		return Recall{}, err
	}
	var res outbox.RecallResult
	if !sent(got, &res) || res.Turn == nil {
		return Recall{WaitsFor: st.waitsFor()}, nil
	}
	r := Recall{Reading: readingView(*res.Turn)}
	if res.Moment != nil {
		r.MomentID = res.Moment.ID
	}
	return r, nil
}
