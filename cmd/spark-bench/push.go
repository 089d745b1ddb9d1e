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
	"time"

	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/push"
)

var (
	pushSmall  = flag.Int("push-small", 10000, "small moments drained, then pushed, by the push benchmark")
	pushBigMB  = flag.Int("push-big-mb", 50, "MB of originals (one file) drained, then pushed, by the push benchmark")
	pushRounds = flag.Int("push-rounds", 3, "rounds of the push benchmark; medians are quoted")
)

func init() {
	register("push", bench{
		help: "spark-engine push beside the outbox drain, in the same run: moments/s (small) and MB/s (originals); goal: push >= 80% of the drain",
		run:  benchPush,
	})
}

// benchPush drains captures into a local engine (the drain's figure), then
// pushes that engine's folder to a fresh engine (push's figure), each round
// on fresh folders, and quotes the medians side by side.
func benchPush(ctx context.Context, out io.Writer) error {
	type figures struct{ drain, push []float64 }
	var small, big figures
	for round := range *pushRounds {
		d, p, err := drainThenPush(ctx, fmt.Sprintf("small%d", round), *pushSmall, 0)
		if err != nil {
			return err
		}
		small.drain = append(small.drain, float64(*pushSmall)/d.Seconds())
		small.push = append(small.push, float64(*pushSmall)/p.Seconds())
		d, p, err = drainThenPush(ctx, fmt.Sprintf("big%d", round), 1, int64(*pushBigMB)<<20)
		if err != nil {
			return err
		}
		mb := float64(int64(*pushBigMB)<<20) / 1e6
		big.drain = append(big.drain, mb/d.Seconds())
		big.push = append(big.push, mb/p.Seconds())
		fmt.Fprintf(out, "  round %d: small drain %.1f push %.1f moments/s; originals drain %.1f push %.1f MB/s; load %s\n",
			round+1, small.drain[round], small.push[round], big.drain[round], big.push[round], loadAvg())
	}
	verdict := func(d, p float64) string {
		if p >= 0.8*d {
			return fmt.Sprintf("%.0f%% of the drain, goal >= 80%%: meets", 100*p/d)
		}
		return fmt.Sprintf("%.0f%% of the drain, goal >= 80%%: MISSES", 100*p/d)
	}
	fmt.Fprintf(out, "push: medians of %d rounds over loopback; 1-minute load average %s\n", *pushRounds, loadAvg())
	sd, sp := medianRate(small.drain), medianRate(small.push)
	fmt.Fprintf(out, "  %d small moments: drain %.0f moments/s, push %.0f moments/s (%s)\n", *pushSmall, sd, sp, verdict(sd, sp))
	fmt.Fprintf(out, "    rounds: drain %s, push %s\n", rounds(small.drain), rounds(small.push))
	bd, bp := medianRate(big.drain), medianRate(big.push)
	fmt.Fprintf(out, "  %d MB of originals: drain %.1f MB/s, push %.1f MB/s (%s)\n", *pushBigMB, bd, bp, verdict(bd, bp))
	fmt.Fprintf(out, "    rounds: drain %s, push %s\n", rounds(big.drain), rounds(big.push))
	return nil
}

func medianRate(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
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
// to another fresh engine. It returns the drain's and the push's times.
func drainThenPush(ctx context.Context, name string, n int, size int64) (drain, pushed time.Duration, err error) {
	dir, cleanup, err := workDir("push-" + name)
	if err != nil {
		return 0, 0, err
	}
	defer cleanup()
	srcDir := filepath.Join(dir, "engine")
	url, token, stopSrc, err := localEngine(ctx, srcDir)
	if err != nil {
		return 0, 0, err
	}
	photos := filepath.Join(dir, "photos")
	if err := os.MkdirAll(photos, 0o755); err != nil {
		stopSrc()
		return 0, 0, err
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
			return 0, 0, err
		}
	}
	o, err := outbox.Open(ctx, filepath.Join(dir, "outbox"), outbox.Options{Target: outbox.Target{URL: url, Token: token}})
	if err != nil {
		stopSrc()
		return 0, 0, err
	}
	for _, r := range o.Capture(ctx, []string{photos}, outbox.CaptureOptions{}) {
		if r.Err != nil {
			o.Close()
			stopSrc()
			return 0, 0, r.Err
		}
	}
	drain, err = drainUntilEmpty(ctx, o)
	o.Close()
	stopSrc()
	if err != nil {
		return 0, 0, err
	}

	dstURL, dstToken, stopDst, err := localEngine(ctx, filepath.Join(dir, "target"))
	if err != nil {
		return 0, 0, err
	}
	defer stopDst()
	start := time.Now()
	st, err := push.Run(ctx, push.Options{Source: srcDir, Target: client.New(dstURL, dstToken, push.HTTPClient(0)),
		Logger: slog.New(slog.DiscardHandler)})
	pushed = time.Since(start)
	// The bench engines have no reader: the drained moments' readings stay
	// queued on the source, and push asks them of the target again (where
	// they wait queued too), as the drain asked them of the source.
	if err != nil {
		return 0, 0, fmt.Errorf("push: %w", err)
	}
	if got := st.Kinds[push.KindMoment].Sent; got != n {
		return 0, 0, fmt.Errorf("push sent %d moments of %d", got, n)
	}
	return drain, pushed, nil
}
