package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/retry"
)

// Ways a move goes, in MoveView.Way.
const (
	// MoveToFamily brings this computer's moments to the family engine
	// Spark now uses.
	MoveToFamily = "to_family"
	// MoveHere brings the moments of the family engine Spark used before
	// to this computer's engine, now that Spark uses it.
	MoveHere = "here"
)

// Why a move stopped, or could not start or count (MoveView.Stop), worded
// by frontend/src/words.ts's moveWords.
const (
	MoveStopCantCount  = "cant_count" // the moments the family engine lacks could not be counted
	MoveStopCantRead   = "cant_read"  // the moments to bring along could not be read
	MoveStopIncomplete = "incomplete" // everything went but Refused things
	MoveStopStopped    = "stopped"    // the move stopped; pressing again goes on
)

// MoveView is what Settings shows about bringing moments along from the
// engine Spark used before to the one it uses now: the window words it
// (frontend/src/words.ts's moveWords) from Way, Lacking, the progress and
// Stop.
type MoveView struct {
	// Available: the engine Spark used before holds moments the one it
	// uses now lacks, so a move can run.
	Available bool `json:"available"`
	// Way is MoveToFamily or MoveHere (empty when there is nowhere to
	// bring moments from).
	Way string `json:"way"`
	// Lacking is how many moments the engine Spark uses now does not have
	// yet (as of the last check).
	Lacking  int    `json:"lacking"`
	Running  bool   `json:"running"`
	Done     uint64 `json:"done"`  // ops copied so far
	Total    uint64 `json:"total"` // ops to copy
	Finished bool   `json:"finished"`
	// Stop says why the move stopped, or could not start or count (a
	// MoveStop code), "" otherwise.
	Stop string `json:"stop"`
	// Refused counts what the engine brought to did not take (Stop
	// "incomplete"); Reason is the first refusal's technical text, for
	// "Details".
	Refused int    `json:"refused"`
	Reason  string `json:"reason"`
	// Problem is the UIError of why the move stopped or could not start,
	// nil otherwise: the window words it after Stop's words.
	Problem *UIError `json:"problem"`
}

// move is a running or finished bring-along of one App (App.moving).
type move struct {
	mu   sync.Mutex
	view MoveView
}

func (a *App) move() *move { return &a.moving }

func (m *move) get() MoveView {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.view
}

// moveRoute is where a move brings moments from and to, in the way the
// prefs say: to the family engine from this computer's engine folder when
// Spark uses the family engine; here from the family engine Spark used
// before (its address and token are still in the prefs) when Spark uses
// this computer's engine. ok is false when there is nowhere to bring
// moments from.
type moveRoute struct {
	way    string
	folder string         // this computer's engine folder (MoveToFamily)
	from   *client.Client // the family engine (MoveHere)
	target *client.Client
	state  string // push's folder for where it got to
}

// source opens what the route reads; the caller closes it.
func (r moveRoute) source() (push.Source, error) {
	if r.way == MoveHere {
		return push.Remote(r.from, retry.Backoff{}), nil
	}
	return push.OpenFolder(r.folder)
}

func moveRouteOf(st *state) (r moveRoute, ok bool, err error) {
	if st.dataDir == "" {
		return r, false, ErrNotReady
	}
	p := st.prefs
	if p.Engine != EngineRemote {
		if p.RemoteURL == "" || p.RemoteToken == "" || st.local == nil {
			return r, false, nil
		}
		return moveRoute{way: MoveHere, state: filepath.Join(st.dataDir, "push"),
			from:   client.New(p.RemoteURL, p.RemoteToken, push.HTTPClient(0)),
			target: client.New(st.local.URL, st.local.Token, push.HTTPClient(0))}, true, nil
	}
	src := filepath.Join(st.dataDir, "engine")
	if _, err := os.Stat(filepath.Join(src, engine.LogFile)); err != nil {
		return r, false, nil
	}
	return moveRoute{way: MoveToFamily, folder: src, state: filepath.Join(st.dataDir, "push"),
		target: client.New(p.RemoteURL, p.RemoteToken, push.HTTPClient(0))}, true, nil
}

// offer records n moments lacking: a move is available when n > 0.
func (v *MoveView) offer(n int) {
	v.Lacking, v.Available = n, n > 0
}

// MoveCheck says how many moments of the engine Spark used before the one
// it uses now lacks. Nothing is sent.
func (s *Settings) MoveCheck() (MoveView, error) {
	a := s.a
	mv := a.move()
	if v := mv.get(); v.Running {
		return v, nil
	}
	r, ok, err := moveRouteOf(a.state())
	if err != nil || !ok {
		return MoveView{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v := MoveView{Way: r.way}
	n, err := a.lacking(ctx, r)
	if err != nil {
		if r.way == MoveHere {
			// The engine Dad left may be gone for good: nothing to say
			// every time Settings opens, only nothing to offer.
			a.log.Info("count the family engine's moments this computer lacks", "err", err)
			return v, nil
		}
		a.log.Warn("count the moments the family engine lacks", "err", err)
		v.Stop, v.Problem = MoveStopCantCount, toUIError(err)
		return v, nil
	}
	v.offer(n)
	mv.mu.Lock()
	if !mv.view.Running {
		if mv.view.Way != r.way {
			// Switched engines since the last move: its words are for
			// the other way.
			mv.view = MoveView{}
		}
		mv.view.Way = r.way
		mv.view.offer(n)
		if n == 0 {
			mv.view.Stop, mv.view.Refused, mv.view.Reason, mv.view.Problem = "", 0, "", nil
		}
	}
	mv.mu.Unlock()
	return v, nil
}

func (a *App) lacking(ctx context.Context, r moveRoute) (int, error) {
	src, err := r.source()
	if err != nil {
		return 0, err
	}
	defer src.Close()
	return push.MissingFrom(ctx, src, r.target)
}

// BringAlong copies every moment, photo, reading and phrase of the engine
// Spark used before to the one it uses now (MoveCheck's way), in the
// background, with EventMove events as it goes. Leaving it (or closing
// Spark) is safe: pressing it again goes on from where it stopped.
// Nothing is deleted anywhere.
func (s *Settings) BringAlong() (MoveView, error) {
	a := s.a
	r, ok, err := moveRouteOf(a.state())
	if err != nil {
		return MoveView{}, err
	}
	if !ok {
		return MoveView{}, refused(CodeNoOtherEngine, "")
	}
	mv := a.move()
	mv.mu.Lock()
	if mv.view.Running {
		v := mv.view
		mv.mu.Unlock()
		return v, nil
	}
	lacking := 0
	if mv.view.Way == r.way {
		lacking = mv.view.Lacking
	}
	mv.view = MoveView{Way: r.way, Running: true}
	mv.view.offer(lacking)
	mv.view.Available = true
	v := mv.view
	mv.mu.Unlock()
	src, err := r.source()
	if err != nil {
		mv.mu.Lock()
		mv.view.Running, mv.view.Stop, mv.view.Problem = false, MoveStopCantRead, toUIError(err)
		v := mv.view
		mv.mu.Unlock()
		return v, nil
	}
	go a.runMove(mv, r, src)
	return v, nil
}

// moveStallAfter and moveGiveUpAfter bound a move as push.Options do:
// zero is push's defaults, a minute without a byte moved and 10 minutes
// of trouble. Tests shorten them.
var moveStallAfter, moveGiveUpAfter time.Duration

func (a *App) runMove(mv *move, r moveRoute, src push.Source) {
	update := func(f func(*MoveView)) {
		mv.mu.Lock()
		f(&mv.view)
		v := mv.view
		mv.mu.Unlock()
		a.emit(EventMove, v)
	}
	st, err := push.Run(context.Background(), push.Options{
		From: src, Target: r.target, StateDir: r.state, Logger: a.log.With("part", "move", "way", r.way),
		StallAfter: moveStallAfter, GiveUpAfter: moveGiveUpAfter,
		// What this computer's own engine wrote for its own token is Dad's:
		// it goes as the target key's member, never as a token's name.
		PushersOwn: view.IsAppToken,
		Progress: func(st push.Stats) {
			update(func(v *MoveView) { v.Done, v.Total = st.Done, st.LastSeq })
		},
	})
	update(func(v *MoveView) {
		v.Running, v.Problem = false, nil
		v.Done, v.Total = st.Done, st.LastSeq
		switch {
		case err == nil:
			v.Finished = true
			v.offer(0)
		case errors.Is(err, push.ErrIncomplete):
			v.Stop, v.Refused, v.Reason = MoveStopIncomplete, refusedCount(st), firstReason(st)
		default:
			v.Stop, v.Problem = MoveStopStopped, moveProblem(err)
		}
	})
	if err != nil {
		a.log.Warn("bring moments along", "way", r.way, "err", err)
	}
	if r.way == MoveHere {
		return
	}
	// The window reads the family engine's copy: bring what just arrived
	// into it now, not at the next tick.
	a.kickSync()
}

// moveProblem is why a move stopped, for the window: an engine that
// stopped answering or kept failing is one Spark can't reach right now
// (CodeOffline), with push's sentence, which names it, as the details.
func moveProblem(err error) *UIError {
	if errors.Is(err, push.ErrStalled) || errors.Is(err, push.ErrGaveUp) {
		return &UIError{Code: CodeOffline, Detail: err.Error()}
	}
	return toUIError(err)
}

func refusedCount(st push.Stats) int {
	n := 0
	for _, c := range st.Kinds {
		n += c.Refused
	}
	return n
}

// firstReason is the first refusal's technical text, for "Details": the
// engine's reason, or the readings left unsettled (a quick recall Pippa
// never read on the engine it came from); "" when none is known.
func firstReason(st push.Stats) string {
	if len(st.Refusals) > 0 {
		return st.Refusals[0].Reason
	}
	if len(st.Unsettled) > 0 {
		return fmt.Sprintf("%d reading(s) never finished on the engine they came from: %s", len(st.Unsettled), st.Unsettled[0])
	}
	return ""
}
