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
)

// MoveEvent is the event Settings listens to while moments are brought
// along; its data is a MoveView.
const MoveEvent = "move"

// MoveView is what Settings shows about bringing the moments of this
// computer's engine to the family engine, in Dad's words.
type MoveView struct {
	// Available: Spark uses a family engine and this computer's engine
	// holds moments, so a move can run.
	Available bool `json:"available"`
	// Lacking is how many of this computer's moments the family engine
	// does not have yet (as of the last check).
	Lacking  int    `json:"lacking"`
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

// moveSource is this computer's engine folder and the family engine to
// bring its moments to; ok is false when Spark uses this computer's engine
// or that folder holds no log.
func (a *App) moveSource() (src string, target *client.Client, ok bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dataDir == "" {
		return "", nil, false, ErrNotReady
	}
	if a.prefs.Engine != EngineRemote {
		return "", nil, false, nil
	}
	src = filepath.Join(a.dataDir, "engine")
	if _, err := os.Stat(filepath.Join(src, engine.LogFile)); err != nil {
		return "", nil, false, nil
	}
	return src, client.New(a.prefs.RemoteURL, a.prefs.RemoteToken, push.HTTPClient(0)), true, nil
}

// MoveCheck says how many moments of this computer's engine the family
// engine lacks. Nothing is sent.
func (s *Settings) MoveCheck() (MoveView, error) {
	a := s.a
	mv := a.move()
	if v := mv.get(); v.Running {
		return v, nil
	}
	src, target, ok, err := a.moveSource()
	if err != nil || !ok {
		return MoveView{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := push.Missing(ctx, src, target)
	if err != nil {
		a.log.Warn("count the moments the family engine lacks", "err", err)
		return MoveView{Message: "Spark can't tell right now which moments the family engine lacks: " + toUIError(err).Message}, nil
	}
	v := MoveView{Available: n > 0, Lacking: n}
	mv.mu.Lock()
	if !mv.view.Running {
		mv.view.Lacking, mv.view.Available = n, n > 0
		if n == 0 {
			mv.view.Message = ""
		}
	}
	mv.mu.Unlock()
	return v, nil
}

// BringAlong copies every moment, photo, reading and phrase of this
// computer's engine to the family engine, in the background, with MoveEvent
// events as it goes. Leaving it (or closing Spark) is safe: pressing it
// again goes on from where it stopped. Nothing is deleted anywhere.
func (s *Settings) BringAlong() (MoveView, error) {
	a := s.a
	src, target, ok, err := a.moveSource()
	if err != nil {
		return MoveView{}, err
	}
	if !ok {
		return MoveView{}, badInput("Choose the family engine first; then Spark can bring this computer's moments to it.")
	}
	mv := a.move()
	mv.mu.Lock()
	if mv.view.Running {
		v := mv.view
		mv.mu.Unlock()
		return v, nil
	}
	mv.view = MoveView{Available: true, Lacking: mv.view.Lacking, Running: true, Message: "Bringing your moments along…"}
	v := mv.view
	mv.mu.Unlock()
	a.mu.Lock()
	state := filepath.Join(a.dataDir, "push")
	a.mu.Unlock()
	go a.runMove(mv, src, target, state)
	return v, nil
}

func (a *App) runMove(mv *move, src string, target *client.Client, state string) {
	update := func(f func(*MoveView)) {
		mv.mu.Lock()
		f(&mv.view)
		v := mv.view
		mv.mu.Unlock()
		a.emit(MoveEvent, v)
	}
	st, err := push.Run(context.Background(), push.Options{
		Source: src, Target: target, StateDir: state, Logger: a.log.With("part", "move"),
		Progress: func(st push.Stats) {
			update(func(v *MoveView) { v.Done, v.Total = st.Done, st.LastSeq })
		},
	})
	update(func(v *MoveView) {
		v.Running = false
		v.Done, v.Total = st.Done, st.LastSeq
		switch {
		case err == nil:
			v.Finished, v.Available, v.Lacking = true, false, 0
			v.Message = "All your moments are on the family engine now. They are still on this computer too."
		case errors.Is(err, push.ErrIncomplete):
			v.Message = fmt.Sprintf("The family engine took everything but %d thing(s); the first reason: %s. Press the button again to try those again.",
				refusedCount(st), firstReason(st))
		default:
			v.Message = "Spark stopped bringing your moments along: " + toUIError(err).Message + " Press the button again to go on from where it stopped."
		}
	})
	if err != nil {
		a.log.Warn("bring moments along", "err", err)
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
		return "a quick recall Pippa never read on this computer"
	}
	return "none given"
}
