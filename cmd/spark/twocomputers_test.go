package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/internal/faultproxy"
	"github.com/sparkfamily/spark/outbox"
)

// computer is one of the family's computers running spark: its own data
// folder (outbox and replica), its own token of dad's, and its own link
// to the engine through a fault proxy.
type computer struct {
	name string
	data string
	vars map[string]string
	// typed are the captions typed on it.
	typed []string
}

// do runs a spark command offline (no engine named) and fails the test
// on an error.
func (c *computer) do(t *testing.T, online bool, args ...string) string {
	t.Helper()
	var vars map[string]string
	if online {
		vars = c.vars
	}
	code, out, errOut := spark(t, vars, append([]string{"--data", c.data}, args...)...)
	if code != 0 {
		t.Fatalf("%s: spark %s = %d\n%s\n%s", c.name, strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func (c *computer) caption(t *testing.T, id, text string) {
	c.typed = append(c.typed, text)
	c.do(t, false, "caption", id, text)
}

// A step is what Dad does on one computer while it is offline.
type step func(t *testing.T, c *computer, id string)

func caption(text string) step {
	return func(t *testing.T, c *computer, id string) { c.caption(t, id, text) }
}

func del(t *testing.T, c *computer, id string)     { c.do(t, false, "delete", id) }
func restore(t *testing.T, c *computer, id string) { c.do(t, false, "restore", id) }

// TestTwoComputers_NoWordLost (issue 35): one engine, two computers of
// dad's with their own folders and tokens, each link through a fault
// proxy. A note is written on the laptop and both sync; then each
// computer, offline, edits, deletes or restores it; then they deliver, in
// both orders, with and without a lost reply on each link (the engine
// commits, the answer never comes, the outbox sends again). In every case:
// both computers end with the same moments (spark moments --json) and the
// same mirror, which is the engine's and a fresh engine's fold of its log;
// every caption typed on either is the caption or an alternative, or (two
// changes of different words) merged into the caption; no outbox holds a
// write turned down; and a moment deleted in the end is in Recently
// deleted on both, and comes back with spark restore.
func TestTwoComputers_NoWordLost(t *testing.T) {
	const base = "water bill for March"
	scenarios := []struct {
		name           string
		laptop, desk   []step
		merged         string // the caption both changes merge into, when they do
		laptopCaptions int
	}{
		{name: "caption-caption", laptop: []step{caption("gas bill for March")}, desk: []step{caption("electricity bill for March")}},
		{name: "different-words", laptop: []step{caption("gas bill for March")}, desk: []step{caption("water bill for April")}, merged: "gas bill for April"},
		{name: "caption-delete", laptop: []step{caption("gas bill for March")}, desk: []step{del}},
		{name: "delete-delete", laptop: []step{del}, desk: []step{del}},
		{name: "delete-restore-caption", laptop: []step{del, restore}, desk: []step{caption("electricity bill for March")}},
		{name: "two-captions-caption", laptop: []step{caption("gas bill for March"), caption("gas bill, paid")}, desk: []step{caption("electricity bill for March")}},
		{name: "delete-delete-restore", laptop: []step{del}, desk: []step{del, restore}},
		{name: "caption-delete-caption", laptop: []step{caption("gas bill for March"), del}, desk: []step{caption("electricity bill for March")}},
	}
	for _, sc := range scenarios {
		for _, laptopFirst := range []bool{true, false} {
			for _, lost := range []bool{false, true} {
				order := "laptop-first"
				if !laptopFirst {
					order = "desk-first"
				}
				name := fmt.Sprintf("%s/%s", sc.name, order)
				if lost {
					name += "/lost-replies"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					eng := enginetest.Start(t, enginetest.WithoutSeat())
					laptop := newComputer(t, eng, "dads-laptop", lost)
					desk := newComputer(t, eng, "dads-desktop", lost)

					id := strings.TrimSpace(laptop.do(t, false, "note", base))
					laptop.do(t, true, "drain", "--for", "20s")
					laptop.do(t, true, "sync")
					desk.do(t, true, "sync")

					for _, s := range sc.laptop {
						s(t, laptop, id)
					}
					for _, s := range sc.desk {
						s(t, desk, id)
					}
					first, second := laptop, desk
					if !laptopFirst {
						first, second = desk, laptop
					}
					first.do(t, true, "drain", "--for", "20s")
					second.do(t, true, "drain", "--for", "20s")
					laptop.do(t, true, "sync")
					desk.do(t, true, "sync")

					// Both computers show the same.
					lm, dm := listed(t, laptop, false), listed(t, desk, false)
					if diff := cmp.Diff(lm, dm); diff != "" {
						t.Fatalf("the two computers differ (-laptop +desktop):\n%s", diff)
					}
					ld, dd := listed(t, laptop, true), listed(t, desk, true)
					if diff := cmp.Diff(ld, dd); diff != "" {
						t.Fatalf("Recently deleted differs (-laptop +desktop):\n%s", diff)
					}
					// The same mirrors: each replica's, the engine's, and a
					// fresh fold of the engine's log.
					want := dumpOf(t, filepath.Join(eng.Dir, engine.MirrorFile))
					for _, c := range []*computer{laptop, desk} {
						if diff := cmp.Diff(want, dumpOf(t, filepath.Join(c.data, "replica", "replica.db"))); diff != "" {
							t.Errorf("%s's copy differs from the engine's mirror (-engine +copy):\n%s", c.name, diff)
						}
					}
					if diff := cmp.Diff(want, replayed(t, eng.Dir)); diff != "" {
						t.Errorf("a fresh fold of the log differs from the engine's mirror (-engine +replayed):\n%s", diff)
					}

					// No word lost.
					m := findLine(append(lm.Moments, ld.Moments...), id)
					if m == nil {
						t.Fatalf("the note %s is on neither list", id)
					}
					shown := []string{m.Caption}
					for _, a := range m.Alternatives {
						shown = append(shown, a.Caption)
					}
					for _, c := range []*computer{laptop, desk} {
						for i, typed := range c.typed {
							if sc.merged != "" && m.Caption == sc.merged {
								continue // both changes are in the caption
							}
							if i < len(c.typed)-1 {
								continue // replaced by the next one typed there, before it went
							}
							if !contains(shown, typed) {
								t.Errorf("%q, typed on %s, is neither the caption nor an alternative: %q", typed, c.name, shown)
							}
						}
					}
					if sc.merged != "" && m.Caption != sc.merged {
						t.Errorf("two changes of different words = %q, %+v; want merged into %q", m.Caption, m.Alternatives, sc.merged)
					}
					// No write turned down.
					for _, c := range []*computer{laptop, desk} {
						if l := outboxListing(t, c); l.WriteCounts.Parked != 0 || l.WriteCounts.Pending != 0 {
							t.Errorf("%s's outbox: %+v %+v; want every write sent, none turned down", c.name, l.WriteCounts, l.Writes)
						}
					}
					// Deleted in the end: in Recently deleted on both, and
					// it comes back.
					if m.DeletedAt != nil {
						if findLine(ld.Moments, id) == nil || findLine(dd.Moments, id) == nil {
							t.Fatalf("the deleted note is not in Recently deleted on both")
						}
						desk.do(t, false, "restore", id)
						desk.do(t, true, "drain", "--for", "20s")
						laptop.do(t, true, "sync")
						if findLine(listed(t, laptop, false).Moments, id) == nil {
							t.Errorf("the note restored on the desktop is not back on the laptop")
						}
					} else if findLine(ld.Moments, id) != nil {
						t.Errorf("a live note is listed in Recently deleted")
					}
				})
			}
		}
	}
}

// newComputer makes a computer with its own folder and device token of
// dad's, linked through a proxy that, with lost, lets the engine commit
// the first write of each kind and then drops the answer.
func newComputer(t *testing.T, eng *enginetest.Engine, name string, lost bool) *computer {
	t.Helper()
	token := eng.AddMemberToken(t, name, "dad", auth.ScopeDevice)
	var mu sync.Mutex
	seen := map[string]bool{}
	proxy := faultproxy.New(t, eng.URL, func(r *http.Request) faultproxy.Fault {
		if !lost || r.Method == http.MethodGet || r.Method == http.MethodHead {
			return faultproxy.Fault{}
		}
		mu.Lock()
		defer mu.Unlock()
		key := r.Method + " " + r.URL.Path
		if seen[key] {
			return faultproxy.Fault{}
		}
		seen[key] = true
		return faultproxy.Fault{Kind: faultproxy.DropReply}
	})
	return &computer{name: name, data: t.TempDir(), vars: map[string]string{"SPARK_ENGINE": proxy.URL(), "SPARK_TOKEN": token}}
}

type moments struct {
	Moments []momentLine `json:"moments"`
}

func listed(t *testing.T, c *computer, deleted bool) moments {
	t.Helper()
	args := []string{"moments", "--json"}
	if deleted {
		args = append(args, "--deleted")
	}
	var m moments
	if err := json.Unmarshal([]byte(c.do(t, false, args...)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

type outboxState struct {
	WriteCounts outbox.Counts  `json:"write_counts"`
	Writes      []outbox.Write `json:"writes"`
}

func outboxListing(t *testing.T, c *computer) outboxState {
	t.Helper()
	var l outboxState
	if err := json.Unmarshal([]byte(c.do(t, false, "outbox", "--json")), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func findLine(ms []momentLine, id string) *momentLine {
	for i := range ms {
		if ms[i].ID == id {
			return &ms[i]
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// dumpOf is the mirror tables of the SQLite file at path (a mirror, or a
// replica, whose own table is not among them).
func dumpOf(t *testing.T, path string) map[string][]string {
	t.Helper()
	m, err := mirror.Open(context.Background(), path, mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d, err := m.Dump(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// replayed is the fold of the engine's log by a fresh engine: the log
// copied alone into a new folder and rebuilt.
func replayed(t *testing.T, dir string) map[string][]string {
	t.Helper()
	fresh := t.TempDir()
	b, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fresh, engine.LogFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := engine.Rebuild(context.Background(), fresh, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return dumpOf(t, filepath.Join(fresh, engine.MirrorFile))
}
