package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/outbox"
)

var (
	pushSmall  = flag.Int("push-small", 10000, "small moments drained, then pushed, by the push benchmark")
	pushBigMB  = flag.Int("push-big-mb", 50, "MB of originals (one file) drained, then pushed, by the push benchmark")
	pushRounds = flag.Int("push-rounds", 3, "rounds of the push benchmark; medians are quoted")
)

func init() {
	register("push", bench{
		help: "spark-engine push beside the outbox drain, in the same run: moments/s (small) and MB/s (originals), with push's peak RSS; goal: push >= 80% of the drain",
		run:  benchPush,
	})
	registerChild("_push", childPushRun)
}

// benchPush drains captures into a local engine (the drain's figure), then
// pushes that engine's folder to a fresh engine (push's figure), each round
// on fresh folders, and quotes the medians side by side.
func benchPush(ctx context.Context, out io.Writer) error {
	type figures struct {
		drain, push []float64
		rssKB       []int // push's peak RSS, each round
	}
	var small, big figures
	for round := range *pushRounds {
		d, p, kb, err := drainThenPush(ctx, fmt.Sprintf("small%d", round), *pushSmall, 0)
		if err != nil {
			return err
		}
		small.drain = append(small.drain, float64(*pushSmall)/d.Seconds())
		small.push = append(small.push, float64(*pushSmall)/p.Seconds())
		small.rssKB = append(small.rssKB, kb)
		d, p, kb, err = drainThenPush(ctx, fmt.Sprintf("big%d", round), 1, int64(*pushBigMB)<<20)
		if err != nil {
			return err
		}
		mb := float64(int64(*pushBigMB)<<20) / 1e6
		big.drain = append(big.drain, mb/d.Seconds())
		big.push = append(big.push, mb/p.Seconds())
		big.rssKB = append(big.rssKB, kb)
		fmt.Fprintf(out, "  round %d: small drain %.1f push %.1f moments/s (push peak RSS %.0f MB); originals drain %.1f push %.1f MB/s (push peak RSS %.0f MB); load %s\n",
			round+1, small.drain[round], small.push[round], float64(small.rssKB[round])/1024, big.drain[round], big.push[round], float64(big.rssKB[round])/1024, benchkit.LoadAverage())
	}
	verdict := func(d, p float64) string {
		if p >= 0.8*d {
			return fmt.Sprintf("%.0f%% of the drain, goal >= 80%%: meets", 100*p/d)
		}
		return fmt.Sprintf("%.0f%% of the drain, goal >= 80%%: MISSES", 100*p/d)
	}
	fmt.Fprintf(out, "push: medians of %d rounds over loopback; load average (1, 5, 15 min) %s\n", *pushRounds, benchkit.LoadAverage())
	sd, sp := benchkit.Median(small.drain), benchkit.Median(small.push)
	fmt.Fprintf(out, "  %d small moments: drain %.0f moments/s, push %.0f moments/s (%s)\n", *pushSmall, sd, sp, verdict(sd, sp))
	fmt.Fprintf(out, "    rounds: drain %s, push %s\n", rounds(small.drain), rounds(small.push))
	bd, bp := benchkit.Median(big.drain), benchkit.Median(big.push)
	fmt.Fprintf(out, "  %d MB of originals: drain %.1f MB/s, push %.1f MB/s (%s)\n", *pushBigMB, bd, bp, verdict(bd, bp))
	fmt.Fprintf(out, "    rounds: drain %s, push %s\n", rounds(big.drain), rounds(big.push))
	// RSS flat in corpus size: the push of many moments and of one large
	// original hold about the same memory (it streams both).
	fmt.Fprintf(out, "  push peak RSS (in a child process, the engines in this one): %.0f MB for %d small moments, %.0f MB for %d MB of originals\n",
		float64(slices.Max(small.rssKB))/1024, *pushSmall, float64(slices.Max(big.rssKB))/1024, *pushBigMB)
	return nil
}

func rounds(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.1f", x)
	}
	return s
}

// drainThenPush captures n photos (each padded to size when size > 0),
// drains them into a fresh local engine, then pushes that engine's folder
// to another fresh engine, in a child process. It returns the drain's and
// the push's times, and the push's peak RSS in kB.
func drainThenPush(ctx context.Context, name string, n int, size int64) (drain, pushed time.Duration, rssKB int, err error) {
	dir, cleanup, err := workDir("push-" + name)
	if err != nil {
		return 0, 0, 0, err
	}
	defer cleanup()
	srcDir := filepath.Join(dir, "engine")
	url, token, stopSrc, err := localEngine(ctx, srcDir)
	if err != nil {
		return 0, 0, 0, err
	}
	photos := filepath.Join(dir, "photos")
	if err := os.MkdirAll(photos, 0o755); err != nil {
		stopSrc()
		return 0, 0, 0, err
	}
	for i := range n {
		p := filepath.Join(photos, fmt.Sprintf("p%05d.jpg", i))
		if size > 0 {
			err = writePadded(p, i, size)
		} else {
			err = os.WriteFile(p, smallJPEG(i), 0o644)
		}
		if err != nil {
			stopSrc()
			return 0, 0, 0, err
		}
	}
	o, err := outbox.Open(ctx, filepath.Join(dir, "outbox"), outbox.Options{Target: outbox.Target{URL: url, Token: token}})
	if err != nil {
		stopSrc()
		return 0, 0, 0, err
	}
	for _, r := range o.Capture(ctx, []string{photos}, outbox.CaptureOptions{}) {
		if r.Err != nil {
			o.Close()
			stopSrc()
			return 0, 0, 0, r.Err
		}
	}
	drain, err = drainUntilEmpty(ctx, o)
	o.Close()
	stopSrc()
	if err != nil {
		return 0, 0, 0, err
	}

	dstURL, dstToken, stopDst, err := localEngine(ctx, filepath.Join(dir, "target"))
	if err != nil {
		return 0, 0, 0, err
	}
	defer stopDst()
	// The push in a child process, so its peak RSS is its own (the two
	// engines run in this one).
	var res pushResult
	if err := runChild(ctx, "_push", []string{srcDir, dstURL, dstToken, strconv.Itoa(n)}, &res); err != nil {
		return 0, 0, 0, err
	}
	return drain, res.Push, res.PeakKB, nil
}

// pushResult is what the _push child returns.
type pushResult struct {
	Push   time.Duration `json:"push"`
	PeakKB int           `json:"peak_kb"`
}

// childPushRun pushes an engine folder to an engine (args: the folder, the
// engine's URL, a token and the moments it must send), then returns the
// push's time and its peak RSS in kB.
func childPushRun(ctx context.Context, args []string) (any, error) {
	if err := childArgs(args, "SOURCE", "URL", "TOKEN", "MOMENTS"); err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(args[3])
	if err != nil {
		return nil, fmt.Errorf("bad moment count %q: %w", args[3], err)
	}
	start := time.Now()
	st, err := push.Run(ctx, push.Options{Source: args[0], Target: client.New(args[1], args[2], push.HTTPClient(0)),
		Logger: slog.New(slog.DiscardHandler)})
	d := time.Since(start)
	// The bench engines have no reader: the drained moments' readings stay
	// queued on the source, and push asks them of the target again (where
	// they wait queued too), as the drain asked them of the source.
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	if got := st.Kinds[push.KindMoment].Sent; got != n {
		return nil, fmt.Errorf("push sent %d moments of %d", got, n)
	}
	kb, err := peakKB()
	if err != nil {
		return nil, err
	}
	return pushResult{Push: d, PeakKB: kb}, nil
}
