package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/datadir"
	"github.com/sparkfamily/spark/internal/retry"
)

const pushSynopsis = "push (--data SRC | --from URL --from-token TOKEN) --to URL --token TOKEN [--state DIR] [--json]"

// pushCmd copies every moment, photo, reading and phrase of an engine
// folder, or of an engine at an address, to another engine, by replaying
// the source's log.
func pushCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("push", stderr, pushSynopsis)
	data := dataFlag(fs)
	from := fs.String("from", "", "the address of an engine to copy from, instead of an engine folder (--data)")
	fromToken := fs.String("from-token", "", "a token of the engine at --from")
	to := fs.String("to", "", "the address of the engine to copy to, e.g. https://spark.example.org")
	token := fs.String("token", "", "a token of the engine at --to (default: $SPARK_TOKEN)")
	state := fs.String("state", "", "where to remember how far the copy got, so a second run sends only the rest (default: push/ in Spark's data folder)")
	asJSON := fs.Bool("json", false, "print a summary in JSON on stdout: counts per kind (sent, already there, refused) and the refusals")
	workers := fs.Int("workers", 4, "how many moments to send at once")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("push: unexpected argument %q", pos[0])
	}
	if *to == "" {
		return usagef("push: --to is required: the address of the engine to copy to")
	}
	if *token == "" {
		*token = os.Getenv("SPARK_TOKEN")
	}
	if *token == "" {
		return usagef("push: --token is required: a token of the engine at %s (its owner makes one with `spark-engine token add NAME`)", *to)
	}
	var (
		src    string
		source push.Source
	)
	switch {
	case *from != "" && *data != "":
		return usagef("push: give --data or --from, not both: the engine folder or the engine address to copy from")
	case *from != "" && *fromToken == "":
		return usagef("push: --from-token is required with --from: a token of the engine at %s", *from)
	case *from != "":
		src = strings.TrimRight(*from, "/")
		source = push.Remote(client.New(src, *fromToken, push.HTTPClient(*workers)), retry.Backoff{})
	default:
		if src, err = dataDir(*data); err != nil {
			return err
		}
	}
	if *state == "" {
		*state = pushStateDir(datadir.Dir, os.UserCacheDir, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	tty := isTerminal(stderr)
	st, err := push.Run(ctx, push.Options{
		Source:   src,
		From:     source,
		Target:   client.New(strings.TrimRight(*to, "/"), *token, push.HTTPClient(*workers)),
		StateDir: *state,
		Workers:  *workers,
		Logger:   slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Progress: func(s push.Stats) { printProgress(stderr, s, tty) },
	})
	if tty {
		fmt.Fprintln(stderr)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(st); jerr != nil {
			return jerr
		}
	} else {
		printSummary(stderr, st)
	}
	if err != nil {
		if errors.Is(err, push.ErrIncomplete) {
			return fmt.Errorf("%w; fix what is listed and run the same command again", err)
		}
		return fmt.Errorf("%w; run the same command again to go on from where it stopped", err)
	}
	fmt.Fprintf(stderr, "push: %s now holds everything %s holds\n", *to, src)
	return nil
}

// printProgress shows how far the copy is: on a terminal one line that
// rewrites itself, elsewhere a line at a time.
func printProgress(w io.Writer, s push.Stats, tty bool) {
	line := fmt.Sprintf("push: op %d of %d; %d moments, %d photos (%.1f MB), %d readings, %d phrases sent",
		s.Done, s.LastSeq, s.Kinds[push.KindMoment].Sent, s.Kinds[push.KindMedia].Sent, float64(s.Bytes)/1e6,
		s.Kinds[push.KindReading].Sent, s.Kinds[push.KindPhrase].Sent)
	if tty {
		fmt.Fprintf(w, "\r%-110s", line)
		return
	}
	fmt.Fprintln(w, line)
}

func printSummary(w io.Writer, s push.Stats) {
	if s.StartSeq > 0 {
		fmt.Fprintf(w, "push: went on after op %d (the earlier runs sent the ops before it)\n", s.StartSeq)
	}
	kinds := make([]string, 0, len(s.Kinds))
	for k := range s.Kinds {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		c := s.Kinds[push.Kind(k)]
		fmt.Fprintf(w, "  %-20s sent %6d  already there %6d  refused %4d\n", k, c.Sent, c.Already, c.Refused)
	}
	for _, r := range s.Refusals {
		fmt.Fprintf(w, "  refused: op %d, %s %s: %s\n", r.Seq, r.Kind, r.ID, r.Reason)
	}
	for _, id := range s.Unsettled {
		fmt.Fprintf(w, "  not moved: quick recall reading %s, never finished on the source\n", id)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// pushStateDir is push's default --state: push/ in Spark's data folder
// (dataBase, datadir.Dir), where the rest of Spark's data lives. Before,
// it was spark/push in the user's cache folder (userCache); a folder there
// is moved on the first push after the upgrade, so a second run still
// sends only the rest. When it cannot be moved, push keeps using it. ""
// (no checkpoint kept) when neither folder can be found.
func pushStateDir(dataBase, userCache func() (string, error), log *slog.Logger) string {
	base, err := dataBase()
	if err != nil {
		return ""
	}
	dir := filepath.Join(base, "push")
	cache, err := userCache()
	if err != nil {
		return dir
	}
	old := filepath.Join(cache, "spark", "push")
	if _, err := os.Stat(old); err != nil {
		return dir
	}
	if _, err := os.Stat(dir); err == nil {
		return dir // moved already; a copy left at the old place is not read
	}
	err = os.MkdirAll(base, 0o700)
	if err == nil {
		err = os.Rename(old, dir)
	}
	if err != nil {
		log.Warn("push: could not move the checkpoints to Spark's data folder; using them where they are", "from", old, "to", dir, "err", err)
		return old
	}
	return dir
}
