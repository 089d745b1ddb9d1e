package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/outbox"
)

// openReplica opens DATA/replica, this computer's copy of the engine.
func (g *globals) openReplica(ctx context.Context) (*replica.Replica, error) {
	dir, err := g.dataDir()
	if err != nil {
		return nil, err
	}
	return replica.Open(ctx, filepath.Join(dir, "replica"), replica.Options{})
}

func cmdSync(ctx context.Context, g *globals, args []string, e env) error {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	g.register(fs)
	watch := fs.Bool("watch", false, "keep syncing until stopped")
	every := fs.Duration("every", 10*time.Second, "with --watch, the wait between syncs")
	rebuild := fs.Bool("rebuild", false, "drop this computer's copy and fetch it again from the start")
	if rest, err := parseInterleaved(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("%w: sync takes no arguments, got %q", errUsage, rest)
	}
	if *every <= 0 {
		return fmt.Errorf("%w: --every must be above 0", errUsage)
	}
	t, err := g.target(e)
	if err != nil {
		return err
	}
	r, err := g.openReplica(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	c := client.New(t.URL, t.Token, nil)
	once := func(rebuild bool) error {
		sync := r.Sync
		if rebuild {
			sync = r.Rebuild
		}
		res, err := sync(ctx, c)
		if err != nil {
			return syncError(err)
		}
		printSync(e, t, res)
		return nil
	}
	if !*watch {
		return once(*rebuild)
	}
	first := *rebuild
	for {
		if err := once(first); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintf(e.stderr, "spark sync: %v\n", err)
		} else {
			first = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*every):
		}
	}
}

// syncError adds what to do to a sync's error.
func syncError(err error) error {
	if errors.Is(err, replica.ErrMustRebuild) {
		return fmt.Errorf("%w (spark sync --rebuild)", err)
	}
	return err
}

func printSync(e env, t outbox.Target, res replica.Result) {
	if res.Reset {
		fmt.Fprintf(e.stdout, "%s is another engine than the one this computer copied: its copy was dropped and fetched again\n", t.URL)
	}
	fmt.Fprintf(e.stdout, "up to date with %s at seq %d: %d ops, %d small copies fetched", t.URL, res.To, res.Ops, res.Copies)
	if res.Missing > 0 {
		fmt.Fprintf(e.stdout, "; %d small copies not on this computer (the cache is full)", res.Missing)
	}
	fmt.Fprintln(e.stdout)
}
