package main

import (
	"sync"
	"time"

	"github.com/sparkfamily/spark/internal/benchkit"
)

// The peak memory of other processes while the words bench runs (the web
// view's process and the tesseract CLI), read with benchkit.Rollup.

// pssSampler samples the PSS of a set of processes every interval and
// keeps the peak of their sum, per phase (a name the caller sets as the
// measured work moves on) and in all.
type pssSampler struct {
	mu    sync.Mutex
	phase string
	peak  map[string]int
	all   int
	stop  chan struct{}
	done  chan struct{}
	pids  func() []int
}

func samplePSS(every time.Duration, pids func() []int) *pssSampler {
	s := &pssSampler{peak: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{}), pids: pids}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *pssSampler) sample() {
	kb := 0
	for _, pid := range s.pids() {
		if pss, _, err := benchkit.Rollup(pid); err == nil {
			kb += int(pss >> 10)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak[s.phase] = max(s.peak[s.phase], kb)
	s.all = max(s.all, kb)
}

// setPhase starts a phase; what is sampled from now on counts for it.
func (s *pssSampler) setPhase(p string) {
	s.mu.Lock()
	s.phase = p
	s.mu.Unlock()
}

// finish stops sampling and returns the peak per phase and in all, in kB.
func (s *pssSampler) finish() (map[string]int, int) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.all
}
