package view

import (
	"context"
	"sync"
)

// WithMoments fills each phrase's moment fields, reading each moment once
// (a few at a time). A moment that cannot be read is marked gone.
func WithMoments(ctx context.Context, src Corpus, ps []Phrase) {
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
				v := MomentView(mo, Viewer{}) // only its copy, kind and caption
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
