package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// momentsListing is `spark moments --json`.
type momentsListing struct {
	Moments  []momentLine `json:"moments"`
	AsOfSeq  uint64       `json:"as_of_seq"`
	SyncedAt *time.Time   `json:"synced_at"`
}

type momentLine struct {
	ID      string     `json:"id"`
	Kind    string     `json:"kind"`
	Caption string     `json:"caption"`
	TakenAt *time.Time `json:"taken_at"`
	Pending bool       `json:"pending"`
	// DeletedAt is, with --deleted, when the moment was deleted.
	DeletedAt  *time.Time    `json:"deleted_at,omitempty"`
	CopyCached bool          `json:"copy_cached"`
	Readings   []readingLine `json:"readings"`
	// Alternatives are the other captions kept with the moment: typed on
	// another computer from the same caption, and not merged into it.
	Alternatives []api.Alternative `json:"alternatives,omitempty"`
}

type readingLine struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Text   string `json:"text"`
}

func cmdMoments(ctx context.Context, g *globals, args []string, e env) error {
	fs := flag.NewFlagSet("moments", flag.ContinueOnError)
	g.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	deleted := fs.Bool("deleted", false, "list Recently deleted (the moments deleted in the last 30 days, which 'spark restore' brings back)")
	if rest, err := parseInterleaved(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("%w: moments takes no arguments, got %q", errUsage, rest)
	}
	r, err := g.openReplica(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	o, err := g.openOutbox(ctx, outbox.Options{}) // no target: nothing is sent
	if err != nil {
		return err
	}
	defer o.Close()
	list := listMoments
	if *deleted {
		list = listDeleted
	}
	l, err := list(ctx, r, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(l)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTAKEN\tSTATE\tPHOTO\tREADING\tCAPTION")
	for _, m := range l.Moments {
		taken := "-"
		if m.TakenAt != nil {
			taken = m.TakenAt.Local().Format("2006-01-02 15:04")
		}
		state := "on the engine"
		switch {
		case m.Pending:
			state = "not sent yet"
		case m.DeletedAt != nil:
			state = "deleted " + m.DeletedAt.Local().Format("2006-01-02 15:04")
		}
		photo := "not here yet"
		if m.CopyCached {
			photo = "here"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, taken, state, photo, readingText(m.Readings), oneLine(m.Caption))
		for _, a := range m.Alternatives {
			fmt.Fprintf(tw, "\t\t\t\t\talso written%s: %s\n", writtenWhere(a), oneLine(a.Caption))
		}
	}
	tw.Flush()
	if l.SyncedAt == nil {
		fmt.Fprintf(e.stdout, "%d moments; this computer has not synced with the engine yet (spark sync)\n", len(l.Moments))
	} else {
		fmt.Fprintf(e.stdout, "%d moments, as of %s (seq %d)\n", len(l.Moments), l.SyncedAt.Local().Format("2006-01-02 15:04:05"), l.AsOfSeq)
	}
	return nil
}

// writtenWhere says where and when an alternative was written, when known.
func writtenWhere(a api.Alternative) string {
	var s string
	if a.WrittenBy != "" {
		s += " on " + a.WrittenBy
	}
	if a.WrittenAt != nil {
		s += ", " + a.WrittenAt.Local().Format("2006-01-02 15:04")
	}
	return s
}

// readingText is the last finished reading's first words, or where the
// readings stand.
func readingText(rs []readingLine) string {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Status == api.TurnFinished {
			t := oneLine(rs[i].Text)
			if r := []rune(t); len(r) > 40 {
				t = string(r[:40]) + "..."
			}
			return t
		}
	}
	if len(rs) > 0 {
		return rs[len(rs)-1].Status
	}
	return "-"
}

// newListing is an empty listing, as of the replica's last sync.
func newListing(ctx context.Context, r *replica.Replica) (momentsListing, error) {
	l := momentsListing{Moments: []momentLine{}}
	st, err := r.State(ctx)
	if err != nil {
		return l, err
	}
	l.AsOfSeq = st.Seq
	if !st.SyncedAt.IsZero() {
		l.SyncedAt = &st.SyncedAt
	}
	return l, nil
}

// listDeleted lists the replica's Recently deleted, newest first, less
// the moments whose restore waits in the outbox, with those whose delete
// waits there.
func listDeleted(ctx context.Context, r *replica.Replica, o *outbox.Outbox) (momentsListing, error) {
	l, err := newListing(ctx, r)
	if err != nil {
		return l, err
	}
	status, err := o.Status(ctx)
	if err != nil {
		return l, err
	}
	waiting := map[string]*time.Time{} // moment id -> when its waiting delete was made; nil: a restore waits
	for _, w := range status.Writes {
		switch w.Kind {
		case outbox.WriteDelete:
			at := w.MadeAt
			waiting[w.MomentID] = &at
		case outbox.WriteRestore:
			waiting[w.MomentID] = nil
		}
	}
	since := time.Now().Add(-api.RecentlyDeletedFor)
	seen := map[string]bool{}
	for before := ""; ; {
		page, next, err := r.DeletedPage(ctx, since, api.MaxPageLimit, before)
		if err != nil {
			return l, err
		}
		for _, m := range page {
			if at, ok := waiting[m.ID]; ok && at == nil {
				continue
			}
			seen[m.ID] = true
			l.Moments = append(l.Moments, lineOf(r, &m))
		}
		if next == nil {
			break
		}
		before = *next
	}
	for id, at := range waiting {
		if at == nil || seen[id] {
			continue
		}
		m, err := r.Moment(ctx, id)
		if err != nil {
			continue // not in this computer's copy yet
		}
		line := lineOf(r, m)
		line.DeletedAt = at
		l.Moments = append(l.Moments, line)
	}
	sort.SliceStable(l.Moments, func(i, j int) bool { return l.Moments[i].ID > l.Moments[j].ID })
	return l, nil
}

// lineOf is a moment of the replica as spark moments lists it.
func lineOf(r *replica.Replica, m *api.Moment) momentLine {
	line := momentLine{ID: m.ID, Kind: m.Kind, Caption: m.Caption, TakenAt: m.TakenAt, DeletedAt: m.DeletedAt, Readings: []readingLine{},
		Alternatives: m.Alternatives}
	if m.Copy != nil {
		line.CopyCached = r.Copies().Has(m.Copy.SHA256)
	}
	for _, t := range m.Turns {
		line.Readings = append(line.Readings, readingLine{ID: t.ID, Status: t.Status, Text: t.Text})
	}
	return line
}

// listMoments merges the replica's live moments with the outbox's captures
// that the replica does not hold yet (pending), newest first.
func listMoments(ctx context.Context, r *replica.Replica, o *outbox.Outbox) (momentsListing, error) {
	l, err := newListing(ctx, r)
	if err != nil {
		return l, err
	}
	moments, err := r.Moments(ctx)
	if err != nil {
		return l, err
	}
	for i := range moments {
		l.Moments = append(l.Moments, lineOf(r, &moments[i]))
	}
	entries, err := o.Entries(ctx)
	if err != nil {
		return l, err
	}
	for _, en := range entries {
		// The replica's moment, once it has it (a deleted one too), wins.
		if _, err := r.Moment(ctx, en.MomentID); err == nil {
			continue
		} else if !errors.Is(err, replica.ErrNotFound) {
			return l, err
		}
		line := momentLine{ID: en.MomentID, Kind: api.KindPhoto, TakenAt: en.TakenAt, Pending: true, Readings: []readingLine{}}
		if _, err := o.SmallCopyPath(en.ID); err == nil || r.Copies().Has(en.CopySHA256) {
			line.CopyCached = true
		}
		l.Moments = append(l.Moments, line)
	}
	sort.SliceStable(l.Moments, func(i, j int) bool { return l.Moments[i].ID > l.Moments[j].ID })
	return l, nil
}
