package app

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/client"
)

// The window names the family member who added a moment or kept a phrase
// (Moment.AddedBy, Phrase.KeptBy) by the member's name, never a token's,
// and only when it is someone else: Dad reading "Added by dad" on his own
// moments would be noise. So Spark asks the family engine once, after each
// switch to it, whom it takes Spark's token for (GET /v1/me, learnViewer)
// and keeps the answer in the state. Until it knows, and with an engine
// too old to say, the window names no one rather than guess; with the
// engine on this computer it names no one either (all of it is this
// computer's, made under tokens Spark itself mints).

// viewer is whom the window shows things to: the family member Spark's
// token acts for, and whether that token is an admin's (which may remove
// anyone's phrase). The zero viewer knows no one.
type viewer struct {
	member string
	admin  bool
}

// other is the name the window gives the member who added or kept
// something: member, when the viewer is known and member is someone else;
// "" for the viewer's own, for what was made before members, and when the
// viewer is unknown.
func (v viewer) other(member string) string {
	if v.member == "" || member == "" || member == v.member || appTokenName(member) {
		return ""
	}
	return member
}

// appTokenName reports whether member is the name the engine on a
// computer gave Spark's own token (tokenName-<unix time>, local.go), which
// is that token's member too. A Move sends what such an engine wrote for
// it as the target key's member (push.Options.PushersOwn), but a push by
// hand with an admin key keeps it, so a family engine may hold moments of
// "spark-desktop-1733493000": a token's name, not a person's, and not one
// the window can tell whose it was. It names no one for them.
func appTokenName(member string) bool {
	digits, ok := strings.CutPrefix(member, tokenName+"-")
	if !ok || digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// learned is what the engine chosen answered to GET /v1/me: the viewer
// (the zero viewer from an engine older than the route), and the client
// it was asked with, so that it never speaks for an engine chosen after.
type learned struct {
	cl *client.Client
	v  viewer
}

// viewer is the viewer of the engine s uses, or the zero viewer when it
// was not learned (yet, or for this engine).
func (s *state) viewer() viewer {
	if s.me == nil || s.me.cl != s.cl || s.cl == nil {
		return viewer{}
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
	var v viewer
	switch e, ok := api.AsError(err); {
	case err == nil:
		v = viewer{member: me.Member, admin: me.Scope == string(auth.ScopeAdmin)}
		if auth.CheckMember(v.member) != nil {
			a.log.Warn("the family engine named Spark's member with a name no engine gives; Spark names no one", "member", me.Member)
			v = viewer{}
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
	if err == nil && v.member != "" {
		a.emit(EventMoment, MomentEvent{Kind: MomentKindMany})
		a.emit(EventPhrases, struct{}{})
	}
}
