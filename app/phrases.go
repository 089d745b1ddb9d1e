package app

import (
	"context"
	"strings"

	"github.com/sparkfamily/spark/api"
)

// Phrases keeps phrases from Pippa's readings and runs quick recalls.
type Phrases struct{ a *App }

// List returns the kept phrases.
func (p *Phrases) List() ([]Phrase, error) {
	cl, err := p.a.client()
	if err != nil {
		return nil, err
	}
	ps, err := cl.Phrases(context.Background())
	if err != nil {
		return nil, err
	}
	out := make([]Phrase, len(ps))
	for i, ph := range ps {
		out[i] = phraseView(ph)
	}
	return out, nil
}

// Keep keeps a phrase selected in a reading of momentID ("" for none).
func (p *Phrases) Keep(text, momentID string) (Phrase, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Phrase{}, badInput("Select some words of a reading first.")
	}
	cl, err := p.a.client()
	if err != nil {
		return Phrase{}, err
	}
	ph, _, err := cl.KeepPhrase(context.Background(), api.KeepPhraseRequest{Text: text, MomentID: momentID})
	if err != nil {
		return Phrase{}, err
	}
	return phraseView(*ph), nil
}

// Remove removes a kept phrase.
func (p *Phrases) Remove(id string) (bool, error) {
	cl, err := p.a.client()
	if err != nil {
		return false, err
	}
	return cl.RemovePhrase(context.Background(), id)
}

// Recall starts a quick recall over the kept phrases; recallID is minted by
// the UI, so a repeat returns the same recall. Follow its reading with
// Moments.Reading.
func (p *Phrases) Recall(recallID string) (Recall, error) {
	cl, err := p.a.client()
	if err != nil {
		return Recall{}, err
	}
	m, t, _, err := cl.StartRecall(context.Background(), recallID)
	if err != nil {
		return Recall{}, err
	}
	r := Recall{Reading: readingView(*t)}
	if m != nil {
		r.MomentID = m.ID
	}
	return r, nil
}
