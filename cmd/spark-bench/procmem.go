package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The memory and CPU time of other processes, from Linux's /proc: the
// words bench measures the web view's process and the tesseract CLI with
// them. Elsewhere each reads as 0.

// pssKB is the proportional set size of pid in kB
// (/proc/PID/smaps_rollup), 0 when it cannot be read.
func pssKB(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return 0
}

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's times: 100
// on every Linux that Spark runs on.
const clockTick = 10 * time.Millisecond

// procStat is what /proc/PID/stat says of pid that the bench uses: its
// parent, and the user and system CPU time of all its threads.
func procStat(pid int) (ppid int, cpu time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command, in brackets, may hold spaces: the fields follow its
	// last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, time.Duration(ut+st) * clockTick, true
}

// descendants are the processes under root (not root itself) whose
// executable's name contains exe, or all of them for "".
func descendants(root int, exe string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(pid); ok {
			parent[pid] = ppid
		}
	}
	var out []int
	for pid := range parent {
		under := false
		for p, n := parent[pid], 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				under = true
				break
			}
		}
		if !under {
			continue
		}
		if exe != "" {
			path, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
			if err != nil || !strings.Contains(filepath.Base(path), exe) {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

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
		kb += pssKB(pid)
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
