package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/outbox"
)

// dataDir is --data, or the user data folder.
func (g *globals) dataDir() (string, error) {
	if g.data != "" {
		return g.data, nil
	}
	return outbox.DefaultDataDir()
}

// openOutbox opens DATA/outbox.
func (g *globals) openOutbox(ctx context.Context, opts outbox.Options) (*outbox.Outbox, error) {
	dir, err := g.dataDir()
	if err != nil {
		return nil, err
	}
	return outbox.Open(ctx, filepath.Join(dir, "outbox"), opts)
}

// target works out the engine: flags, then environment, then the app's
// settings when they name a remote engine.
func (g *globals) target(e env) (outbox.Target, error) {
	t := outbox.Target{URL: g.engine, Token: g.token}
	if t.URL == "" {
		t.URL = e.getenv("SPARK_ENGINE")
	}
	if t.Token == "" {
		t.Token = e.getenv("SPARK_TOKEN")
	}
	if t.URL == "" {
		if s, ok := g.appSettings(); ok && s.Engine == "remote" && s.RemoteURL != "" {
			t.URL = s.RemoteURL
			if t.Token == "" {
				t.Token = s.RemoteToken
			}
		}
	}
	if t.URL == "" {
		return t, errors.New("no engine to send to: pass --engine URL and --token TOKEN (or set SPARK_ENGINE and SPARK_TOKEN); " +
			"the app's own engine runs only inside the app, so for it use the app itself")
	}
	if !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://") {
		return t, fmt.Errorf("the engine URL %q should start with http:// or https://", t.URL)
	}
	if t.Token == "" {
		return t, fmt.Errorf("no token for %s: pass --token TOKEN or set SPARK_TOKEN (spark-engine token add NAME prints one)", t.URL)
	}
	return t, nil
}

// appSettings is the part of the desktop app's DATA/settings.json that
// names its engine.
type appSettings struct {
	Engine      string `json:"engine"`
	RemoteURL   string `json:"remote_url"`
	RemoteToken string `json:"remote_token"`
}

func (g *globals) appSettings() (appSettings, bool) {
	var s appSettings
	dir, err := g.dataDir()
	if err != nil {
		return s, false
	}
	b, err := atomicfile.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		return s, false
	}
	return s, json.Unmarshal(b, &s) == nil
}

func cmdImport(ctx context.Context, g *globals, args []string, e env) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	g.register(fs)
	force := fs.Bool("force", false, "import photos already imported or delivered (same bytes) again")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%w: name the photos or folders to import", errUsage)
	}
	o, err := g.openOutbox(ctx, outbox.Options{})
	if err != nil {
		return err
	}
	defer o.Close()
	bar := newProgress(e, "import")
	var added, dups, failed int
	var sizes int64
	o.Capture(ctx, paths, outbox.CaptureOptions{
		Force:   *force,
		OnFiles: func(n int) { bar.setTotal(int64(n)) },
		OnResult: func(r outbox.CaptureResult) {
			switch {
			case r.Err != nil:
				failed++
				bar.line("error: %s", oneLine(r.Err.Error()))
			case r.Duplicate:
				dups++
				bar.line("already imported as %s: %s (use --force to import it again)", r.DuplicateOf, r.Path)
			default:
				added++
				sizes += r.Entry.Size
				if !bar.tty {
					bar.line("added %s %s", r.Entry.ID, r.Path)
				}
			}
			bar.add(1, filepath.Base(r.Path))
		},
	})
	bar.done()
	fmt.Fprintf(e.stdout, "%d added (%s), %d already imported, %d failed; run 'spark drain' to send them\n",
		added, outbox.FormatSize(sizes), dups, failed)
	if failed > 0 {
		return errReported
	}
	return nil
}

func cmdDrain(ctx context.Context, g *globals, args []string, e env) error {
	fs := flag.NewFlagSet("drain", flag.ContinueOnError)
	g.register(fs)
	limit := fs.Duration("for", 2*time.Minute, "how long to keep retrying passing trouble")
	watch := fs.Bool("watch", false, "keep running (and sending new imports) until stopped")
	if rest, err := parseInterleaved(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("%w: drain takes no arguments, got %q", errUsage, rest)
	}
	t, err := g.target(e)
	if err != nil {
		return err
	}
	opts := outbox.Options{Target: t}
	if !*watch {
		// A manual drain is bounded: keep waits short enough to retry a
		// few times within --for.
		opts.BackoffCap = max(time.Second, min(15*time.Second, *limit/4))
	}
	o, err := g.openOutbox(ctx, opts)
	if err != nil {
		return err
	}
	defer o.Close()
	return drain(ctx, o, *limit, *watch, e)
}

func cmdOutbox(ctx context.Context, g *globals, args []string, e env) error {
	fs := flag.NewFlagSet("outbox", flag.ContinueOnError)
	g.register(fs)
	asJSON := fs.Bool("json", false, "print JSON: the counts per state and every entry")
	if rest, err := parseInterleaved(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("%w: outbox takes no arguments, got %q", errUsage, rest)
	}
	o, err := g.openOutbox(ctx, outbox.Options{})
	if err != nil {
		return err
	}
	defer o.Close()
	ents, err := o.Entries(ctx)
	if err != nil {
		return err
	}
	// One read of the queue for the counts and the writes, so they agree.
	st, err := o.Status(ctx)
	if err != nil {
		return err
	}
	counts, wcounts, writes := st.Counts[outbox.KindPhoto], writeCounts(st.Counts), st.Writes
	leftovers, err := o.Leftovers(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if leftovers == nil {
			leftovers = []outbox.Leftover{}
		}
		if ents == nil {
			ents = []outbox.Entry{}
		}
		if writes == nil {
			writes = []outbox.Write{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Counts      outbox.Counts  `json:"counts"`
			Entries     []outbox.Entry `json:"entries"`
			WriteCounts outbox.Counts  `json:"write_counts"`
			Writes      []outbox.Write `json:"writes"` // waiting and parked
			// Leftovers are the folders not removed yet (outbox.Leftovers).
			Leftovers []outbox.Leftover `json:"leftovers"`
			// ByKind counts the queue's entries per kind (photo, note,
			// caption...) and state.
			ByKind outbox.KindCounts `json:"by_kind"`
		}{counts, ents, wcounts, writes, leftovers, st.Counts})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tSTEPS\tNAME\tREASON")
	for _, en := range ents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", en.ID, en.State, stepsText(en), en.Name, reason(en))
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%d pending, %d parked, %d done\n", counts.Pending, counts.Parked, counts.Done)
	if len(writes) > 0 {
		printWrites(e, writes, wcounts)
	}
	printLeftovers(e, leftovers)
	return nil
}

// writeCounts adds up the counts of every kind but photos.
func writeCounts(byKind outbox.KindCounts) outbox.Counts {
	var c outbox.Counts
	for k, n := range byKind {
		if k != outbox.KindPhoto {
			c.Pending += n.Pending
			c.Parked += n.Parked
			c.Done += n.Done
		}
	}
	return c
}

// printLeftovers says, when there are any, which of the outbox's folders
// could not be removed yet: Dad's sentence, then one line per folder.
func printLeftovers(e env, ls []outbox.Leftover) {
	if len(ls) == 0 {
		return
	}
	fmt.Fprintln(e.stdout)
	fmt.Fprintln(e.stdout, leftoversWords(outbox.CountLeftovers(ls)))
	for _, l := range ls {
		fmt.Fprintln(e.stdout, "  "+oneLine(outbox.LeftoverDetail(l)))
	}
}

// printWrites lists the writes other than photos still to send.
func printWrites(e env, writes []outbox.Write, c outbox.Counts) {
	fmt.Fprintln(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WRITE\tSTATE\tWHAT\tMOMENT\tREASON")
	for _, w := range writes {
		why := ""
		switch {
		case w.State == outbox.Parked:
			why = fmt.Sprintf("parked: %s (%s)", oneLine(w.LastError), w.LastCode)
		case w.LastError != "" && w.NextTry != nil:
			why = fmt.Sprintf("waiting until %s after %d tries: %s", w.NextTry.Local().Format("15:04:05"), w.Attempts, oneLine(w.LastError))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, w.State, oneLine(w.Describe()), w.MomentID, why)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%d writes pending, %d parked\n", c.Pending, c.Parked)
}

// stepsText shows the steps done, e.g. "create,copy" or "-".
func stepsText(en outbox.Entry) string {
	var done []string
	for _, s := range en.Steps {
		if s.Done {
			done = append(done, s.Name)
		}
	}
	if len(done) == 0 {
		return "-"
	}
	return strings.Join(done, ",")
}

// reason says why an entry is not delivered yet.
func reason(en outbox.Entry) string {
	switch {
	case en.State == outbox.Parked:
		return fmt.Sprintf("parked: %s (%s)", oneLine(parkedWords(en.LastCode, en.Name, en.LastError)), en.LastCode)
	case en.LastError != "" && en.NextTry != nil:
		return fmt.Sprintf("waiting until %s after %d tries: %s", en.NextTry.Local().Format("15:04:05"), en.Attempts, oneLine(en.LastError))
	}
	return ""
}

func cmdRetry(ctx context.Context, g *globals, args []string, e env) error {
	fs := flag.NewFlagSet("retry", flag.ContinueOnError)
	g.register(fs)
	all := fs.Bool("all", false, "retry every parked entry")
	ids, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *all == (len(ids) > 0) {
		return fmt.Errorf("%w: give entry ids or --all", errUsage)
	}
	o, err := g.openOutbox(ctx, outbox.Options{})
	if err != nil {
		return err
	}
	defer o.Close()
	if *all {
		byKind, err := o.RetryAll(ctx)
		if err != nil {
			return err
		}
		n := byKind[outbox.KindPhoto]
		nw := 0
		for k, c := range byKind {
			if k != outbox.KindPhoto {
				nw += c
			}
		}
		fmt.Fprintf(e.stdout, "%d parked entries and %d parked writes back to pending; run 'spark drain' to send them\n", n, nw)
		return nil
	}
	for _, id := range ids {
		if err := o.Retry(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s back to pending\n", id)
	}
	return nil
}

func cmdDiscard(ctx context.Context, g *globals, args []string, e env) error {
	fs := flag.NewFlagSet("discard", flag.ContinueOnError)
	g.register(fs)
	export := fs.String("export", "", "copy the original into this folder first")
	ids, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return fmt.Errorf("%w: give one entry id", errUsage)
	}
	o, err := g.openOutbox(ctx, outbox.Options{})
	if err != nil {
		return err
	}
	defer o.Close()
	path, err := o.Discard(ctx, ids[0], *export)
	if err != nil {
		return err
	}
	if path != "" {
		fmt.Fprintf(e.stdout, "exported %s\n", path)
	}
	fmt.Fprintf(e.stdout, "discarded %s\n", ids[0])
	return nil
}
