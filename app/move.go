package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/push"
	"github.com/sparkfamily/spark/retry"
)

// MoveEvent is the event Settings listens to while moments are brought
// along; its data is a MoveView.
const MoveEvent = "move"

// Ways a move goes, in MoveView.Way.
const (
	// MoveToFamily brings this computer's moments to the family engine
	// Spark now uses.
	MoveToFamily = "to_family"
	// MoveHere brings the moments of the family engine Spark used before
	// to this computer's engine, now that Spark uses it.
	MoveHere = "here"
)

// MoveView is what Settings shows about bringing moments along from the
// engine Spark used before to the one it uses now, in Dad's words.
type MoveView struct {
	// Available: the engine Spark used before holds moments the one it
	// uses now lacks, so a move can run.
	Available bool `json:"available"`
	// Way is MoveToFamily or MoveHere (empty when there is nowhere to
	// bring moments from).
	Way string `json:"way"`
	// Lacking is how many moments the engine Spark uses now does not have
	// yet (as of the last check).
	Lacking int `json:"lacking"`
	// Offer, Button and Hint say, when Available, what is lacking, what
	// the button does and what stays where.
	Offer    string `json:"offer"`
	Button   string `json:"button"`
	Hint     string `json:"hint"`
	Running  bool   `json:"running"`
	Done     uint64 `json:"done"`  // ops copied so far
	Total    uint64 `json:"total"` // ops to copy
	Finished bool   `json:"finished"`
	Message  string `json:"message"`
}

// move is a running or finished bring-along of one App. The registry lives
// here, beside its only user, so the App itself needs no field for it.
type move struct {
	mu   sync.Mutex
	view MoveView
}

var moves = struct {
	sync.Mutex
	m map[*App]*move
}{m: map[*App]*move{}}

func (a *App) move() *move {
	moves.Lock()
	defer moves.Unlock()
	mv := moves.m[a]
	if mv == nil {
		mv = &move{}
		moves.m[a] = mv
	}
	return mv
}

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
}

// source opens what the route reads; the caller closes it.
func (r moveRoute) source() (push.Source, error) {
	if r.way == MoveHere {
		return push.Remote(r.from, retry.Backoff{}), nil
	}
	return push.OpenFolder(r.folder)
}

func (a *App) moveRoute() (r moveRoute, ok bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dataDir == "" {
		return r, false, ErrNotReady
	}
	if a.prefs.Engine != EngineRemote {
		if a.prefs.RemoteURL == "" || a.prefs.RemoteToken == "" || a.local == nil {
			return r, false, nil
		}
		return moveRoute{way: MoveHere,
			from:   client.New(a.prefs.RemoteURL, a.prefs.RemoteToken, push.HTTPClient(0)),
			target: client.New(a.local.URL, a.local.Token, push.HTTPClient(0))}, true, nil
	}
	src := filepath.Join(a.dataDir, "engine")
	if _, err := os.Stat(filepath.Join(src, engine.LogFile)); err != nil {
		return r, false, nil
	}
	return moveRoute{way: MoveToFamily, folder: src,
		target: client.New(a.prefs.RemoteURL, a.prefs.RemoteToken, push.HTTPClient(0))}, true, nil
}

// offer fills in v's words for n moments lacking, the way v goes.
func (v *MoveView) offer(n int) {
	v.Lacking, v.Available = n, n > 0
	v.Offer, v.Button, v.Hint = "", "", ""
	if n == 0 {
		return
	}
	what := "moments"
	if n == 1 {
		what = "moment"
	}
	if v.Way == MoveHere {
		v.Offer = fmt.Sprintf("The family engine has %d %s this computer doesn't.", n, what)
		v.Button = "Bring them here"
		if n == 1 {
			v.Button = "Bring it here"
		}
		v.Hint = "They stay on the family engine too. Readings Pippa already gave come along as they are."
		return
	}
	verb := "are"
	if n == 1 {
		verb = "is"
	}
	v.Offer = fmt.Sprintf("The family engine does not have %d %s that %s kept on this computer.", n, what, verb)
	v.Button = fmt.Sprintf("Bring my %d %s along", n, what)
	v.Hint = "They stay on this computer too. Readings Pippa already gave come along as they are."
}

// MoveCheck says how many moments of the engine Spark used before the one
// it uses now lacks. Nothing is sent.
func (s *Settings) MoveCheck() (MoveView, error) {
	a := s.a
	mv := a.move()
	if v := mv.get(); v.Running {
		return v, nil
	}
	r, ok, err := a.moveRoute()
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
		v.Message = "Spark can't tell right now which moments the family engine lacks: " + toUIError(err).Message
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
			mv.view.Message = ""
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
// background, with MoveEvent events as it goes. Leaving it (or closing
// Spark) is safe: pressing it again goes on from where it stopped.
// Nothing is deleted anywhere.
func (s *Settings) BringAlong() (MoveView, error) {
	a := s.a
	r, ok, err := a.moveRoute()
	if err != nil {
		return MoveView{}, err
	}
	if !ok {
		return MoveView{}, badInput("Spark has no other engine to bring moments from: choose the family engine to bring this computer's moments to it, or this computer's engine to bring the family engine's moments here.")
	}
	mv := a.move()
	mv.mu.Lock()
	if mv.view.Running {
		v := mv.view
		mv.mu.Unlock()
		return v, nil
	}
	msg := "Bringing your moments along…"
	if r.way == MoveHere {
		msg = "Bringing the family engine's moments here…"
	}
	lacking := 0
	if mv.view.Way == r.way {
		lacking = mv.view.Lacking
	}
	mv.view = MoveView{Way: r.way, Running: true, Message: msg}
	mv.view.offer(lacking)
	mv.view.Available = true
	v := mv.view
	mv.mu.Unlock()
	src, err := r.source()
	if err != nil {
		mv.mu.Lock()
		mv.view.Running, mv.view.Message = false, "Spark can't read the moments to bring along: "+toUIError(err).Message
		v := mv.view
		mv.mu.Unlock()
		return v, nil
	}
	a.mu.Lock()
	state := filepath.Join(a.dataDir, "push")
	a.mu.Unlock()
	go a.runMove(mv, r, src, state)
	return v, nil
}

func (a *App) runMove(mv *move, r moveRoute, src push.Source, state string) {
	update := func(f func(*MoveView)) {
		mv.mu.Lock()
		f(&mv.view)
		v := mv.view
		mv.mu.Unlock()
		a.emit(MoveEvent, v)
	}
	st, err := push.Run(context.Background(), push.Options{
		From: src, Target: r.target, StateDir: state, Logger: a.log.With("part", "move", "way", r.way),
		Progress: func(st push.Stats) {
			update(func(v *MoveView) { v.Done, v.Total = st.Done, st.LastSeq })
		},
	})
	there, left := "on the family engine", "on this computer"
	if r.way == MoveHere {
		there, left = "on this computer", "on the family engine"
	}
	update(func(v *MoveView) {
		v.Running = false
		v.Done, v.Total = st.Done, st.LastSeq
		switch {
		case err == nil:
			v.Finished = true
			v.offer(0)
			v.Message = fmt.Sprintf("All your moments are %s now. They are still %s too.", there, left)
		case errors.Is(err, push.ErrIncomplete):
			took := "The family engine"
			if r.way == MoveHere {
				took = "This computer"
			}
			v.Message = fmt.Sprintf("%s took everything but %d thing(s); the first reason: %s. Press the button again to try those again.",
				took, refusedCount(st), firstReason(st))
		default:
			v.Message = "Spark stopped bringing your moments along: " + toUIError(err).Message + " Press the button again to go on from where it stopped."
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
	a.mu.Lock()
	running := a.repl.kick != nil
	a.mu.Unlock()
	if running {
		a.kickSync()
	}
}

func refusedCount(st push.Stats) int {
	n := 0
	for _, c := range st.Kinds {
		n += c.Refused
	}
	return n
}

func firstReason(st push.Stats) string {
	if len(st.Refusals) > 0 {
		return st.Refusals[0].Reason
	}
	if len(st.Unsettled) > 0 {
		return "a quick recall Pippa never read on the engine it came from"
	}
	return "none given"
}
