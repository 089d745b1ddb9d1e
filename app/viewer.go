package app

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/client"
)

// The window names the family member who added a moment or kept a phrase
// only when it knows whom the engine takes Spark's token for
// (view.Viewer). So Spark asks the family engine once, after each switch
// to it (GET /v1/me, learnViewer), and keeps the answer in the state.

// learned is what the engine chosen answered to GET /v1/me: the viewer
// (the zero viewer from an engine older than the route), and the client
// it was asked with, so that it never speaks for an engine chosen after.
type learned struct {
	cl *client.Client
	v  view.Viewer
}

// viewer is the viewer of the engine s uses, or the zero viewer when it
// was not learned (yet, or for this engine).
func (s *state) viewer() view.Viewer {
	if s.me == nil || s.me.cl != s.cl || s.cl == nil {
		return view.Viewer{}
	}
	return s.me.v
}

// errSwitched is learnViewer's change refused: the engine was switched
// while it asked.
var errSwitched = errors.New("app: the engine was switched meanwhile")

// learnViewer asks the family engine st uses whom it takes Spark's token
// for, once per switch to it, and publishes the answer in the state. An
// engine that can't be reached, or refuses the token, is asked again at
// the next sync; one older than GET /v1/me (404) is not, and the window
// names no one. Once a member is known, every screen reads what it shows
// again (Moments, a moment, Phrases), now naming the others.
func (a *App) learnViewer(ctx context.Context, st *state) {
	if !st.remote() || st.cl == nil || (st.me != nil && st.me.cl == st.cl) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	me, err := st.cl.Me(ctx)
	var v view.Viewer
	switch e, ok := api.AsError(err); {
	case err == nil:
		v = view.Viewer{Member: me.Member, Admin: me.Scope == string(auth.ScopeAdmin)}
		if auth.CheckMember(v.Member) != nil {
			a.log.Warn("the family engine named Spark's member with a name no engine gives; Spark names no one", "member", me.Member)
			v = view.Viewer{}
		}
	case ok && e.Status == http.StatusNotFound:
		a.log.Info("the family engine is older than GET /v1/me; the window names no one who added what")
	default:
		return // asked again at the next sync
	}
	_, err = a.change(func(cur *state) (*state, error) {
		if cur.cl != st.cl {
			return nil, errSwitched
		}
		next := *cur
		next.me = &learned{cl: st.cl, v: v}
		return &next, nil
	})
	if err == nil && v.Member != "" {
		a.emit(EventMoment, MomentEvent{Kind: MomentKindMany})
		a.emit(EventPhrases, struct{}{})
	}
}
