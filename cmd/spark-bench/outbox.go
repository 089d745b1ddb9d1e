package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/host"
	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/outbox/photo"
)

var (
	benchDir      = flag.String("dir", "", "folder for the benchmarks' outboxes, engines and data, on the disk to measure (default: a temp folder)")
	captureN      = flag.Int("capture-batch", 100, "photos in the capture batch")
	captureSmallN = flag.Int("capture-small", 500, "tiny photos in the fsync-bound capture batch")
	captureRuns   = flag.Int("capture-runs", 3, "runs of the capture batch and its peer (the median is shown)")
	timeSingles   = flag.Bool("capture-singles", true, "also time single photos until safe")
	drainSmall    = flag.Int("drain-small", 1000, "small captures delivered by the drain benchmark")
	drainBigMB    = flag.Int("drain-big-mb", 50, "size of each large original in the drain benchmark, in MB")
	drainBigN     = flag.Int("drain-big", 4, "large originals delivered by the drain benchmark")
)

func init() {
	register("capture", bench{
		help: "outbox capture: one photo until safe, and a batch of 12 MP photos with 2 workers beside the same small copies alone",
		run:  benchCapture,
	})
	register("drain", bench{
		help: "outbox drain over loopback to a local engine: captures/s (small) and MB/s with peak RSS (large)",
		run:  benchDrain,
	})
	registerChild("_drain", childDrain)
}

// workDir makes a folder for one benchmark run under --dir or the temp dir.
func workDir(name string) (string, func(), error) {
	d, err := os.MkdirTemp(*benchDir, "spark-bench-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// twelveMP lists the JPEGs of the photo folder between 11 and 13 MP.
func twelveMP() ([]string, error) {
	ents, err := os.ReadDir(*photosDir)
	if err != nil {
		return nil, fmt.Errorf("the capture benchmark needs the test photos (--photos): %w", err)
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(*photosDir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		info, err := photo.Probe(f)
		f.Close()
		mp := float64(info.Width*info.Height) / 1e6
		if err == nil && info.Format == photo.FormatJPEG && mp >= 11 && mp <= 13 {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no 12 MP JPEG in %s", *photosDir)
	}
	sort.Strings(out)
	return out, nil
}

// goalBatch is issue 10's goal for the capture batch: 100 twelve-megapixel
// JPEGs safe, 2 workers, in under 10 s.
const goalBatch = 10 * time.Second

func benchCapture(ctx context.Context, out io.Writer) error {
	files, err := twelveMP()
	if err != nil {
		return err
	}
	if *timeSingles {
		if err := captureSingles(ctx, out, files); err != nil {
			return err
		}
	}
	if err := captureBatch(ctx, out, files); err != nil {
		return err
	}
	return captureSmall(ctx, out)
}

// captureSmall times --capture-small tiny photos made safe by 2 workers,
// where the fsyncs and commits are the cost, beside its peer: the same
// originals written and fsynced, each with its folder, by 2 workers.
func captureSmall(ctx context.Context, out io.Writer) error {
	dir, cleanup, err := workDir("capture-small")
	if err != nil {
		return err
	}
	defer cleanup()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	var paths []string
	for i := range *captureSmallN {
		p := filepath.Join(src, fmt.Sprintf("s%05d.jpg", i))
		if err := os.WriteFile(p, smallJPEG(i), 0o644); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	var ours, peer []time.Duration
	for r := range max(*captureRuns, 1) {
		o, err := outbox.Open(ctx, filepath.Join(dir, fmt.Sprintf("outbox%d", r)), outbox.Options{Workers: 2})
		if err != nil {
			return err
		}
		start := time.Now()
		res := o.Capture(ctx, []string{src}, outbox.CaptureOptions{Force: true})
		ours = append(ours, time.Since(start))
		o.Close()
		for _, c := range res {
			if c.Err != nil {
				return c.Err
			}
		}
		d, err := rawDurableWrites(paths, filepath.Join(dir, fmt.Sprintf("raw%d", r)), 2)
		if err != nil {
			return err
		}
		peer = append(peer, d)
	}
	n := float64(len(paths))
	o, p := benchkit.Median(ours), benchkit.Median(peer)
	fmt.Fprintf(out, "capture: %d tiny photos (fsync-bound), 2 workers, median of %d runs; peer = each original written and fsynced in its own folder, the folder synced, 2 workers\n", len(paths), len(ours))
	fmt.Fprintf(out, "  safe in %.2f s (%.0f/s); peer %.2f s (%.0f/s); ratio %.2fx; load average (1, 5, 15 min) %s\n",
		o.Seconds(), n/o.Seconds(), p.Seconds(), n/p.Seconds(), float64(o)/float64(p), benchkit.LoadAverage())
	return nil
}

// rawDurableWrites copies each file into its own folder under dir with
// workers goroutines, fsyncing the file and the folder, and returns the
// wall time.
func rawDurableWrites(paths []string, dir string, workers int) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := durableCopy(paths[i], filepath.Join(dir, strconv.Itoa(i))); err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	d := time.Since(start)
	close(errs)
	return d, <-errs
}

func durableCopy(src, folder string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.Mkdir(folder, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(folder, "original"))
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	d, err := os.Open(folder)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// captureSingles times one photo until safe, beside its small copy alone.
func captureSingles(ctx context.Context, out io.Writer, files []string) error {
	dir, cleanup, err := workDir("capture")
	if err != nil {
		return err
	}
	defer cleanup()
	o, err := outbox.Open(ctx, filepath.Join(dir, "outbox"), outbox.Options{Workers: 2})
	if err != nil {
		return err
	}
	defer o.Close()

	fmt.Fprintln(out, "capture: time until one photo is safe (copy, small copy, fsyncs, commit), median of 5")
	singles := files
	if heic, _ := filepath.Glob(filepath.Join(*photosDir, "*.heic")); len(heic) > 0 {
		photo.Warm(ctx) // the one-time WebAssembly compile, paid by the first HEIC photo of a run
		singles = append(singles, heic[0])
	}
	for _, f := range singles {
		st, _ := os.Stat(f)
		var ds []time.Duration
		for range 5 {
			start := time.Now()
			r := o.Capture(ctx, []string{f}, outbox.CaptureOptions{Force: true})[0]
			if r.Err != nil {
				return r.Err
			}
			ds = append(ds, time.Since(start))
		}
		// The small copy alone, to show what the outbox adds (copy,
		// hashing, fsyncs, commit).
		var sc []time.Duration
		for range 3 {
			start := time.Now()
			if _, err := photo.SmallCopy(ctx, f, io.Discard, photo.Options{}); err != nil {
				return err
			}
			sc = append(sc, time.Since(start))
		}
		m, s := benchkit.Median(ds), benchkit.Median(sc)
		fmt.Fprintf(out, "  %-40s %5.1f MB  safe in %5.0f ms  (small copy alone %5.0f ms, outbox adds %4.0f ms)\n",
			filepath.Base(f), float64(st.Size())/1e6, millis(m), millis(s), millis(m-s))
	}
	return nil
}

// batchRun is one run of the capture batch and of its peer.
type batchRun struct {
	safe, first, cpu time.Duration // the outbox: all safe, first card, CPU time
	peer, peerCPU    time.Duration // the small copies alone
}

// captureBatch times --capture-batch photos made safe by 2 workers, each
// run in a fresh outbox, beside its peer: the same small copies alone
// with 2 workers and no outbox (no copy, no hash, no fsync, no commit),
// the floor a capture pipeline can reach on this machine.
func captureBatch(ctx context.Context, out io.Writer, files []string) error {
	var batch []string
	var bytes int64
	for i := 0; len(batch) < *captureN; i++ {
		f := files[i%len(files)]
		st, _ := os.Stat(f)
		bytes += st.Size()
		batch = append(batch, f)
	}
	load0 := benchkit.LoadAverage()
	var runs []batchRun
	for range max(*captureRuns, 1) {
		r, err := captureBatchOnce(ctx, batch)
		if err != nil {
			return err
		}
		if r.peer, r.peerCPU, err = smallCopies(ctx, batch, 2); err != nil {
			return err
		}
		runs = append(runs, r)
	}
	pick := func(f func(batchRun) time.Duration) time.Duration {
		var ds []time.Duration
		for _, r := range runs {
			ds = append(ds, f(r))
		}
		return benchkit.Median(ds)
	}
	safe, peer := pick(func(r batchRun) time.Duration { return r.safe }), pick(func(r batchRun) time.Duration { return r.peer })
	cpu, peerCPU := pick(func(r batchRun) time.Duration { return r.cpu }), pick(func(r batchRun) time.Duration { return r.peerCPU })
	var all []string
	for _, r := range runs {
		all = append(all, fmt.Sprintf("%.2f/%.2f", r.safe.Seconds(), r.peer.Seconds()))
	}
	n := float64(len(batch))
	fmt.Fprintf(out, "capture: batch of %d twelve-megapixel JPEGs (%s repeated, %.0f MB), 2 workers, median of %d runs (ours/peer s: %s)\n",
		len(batch), strings.Join(baseNames(files), ", "), float64(bytes)/1e6, len(runs), strings.Join(all, " "))
	fmt.Fprintln(out, "  peer = the same small copies alone, 2 workers, no outbox (no copy, hash, fsync or commit)")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "figure\tours s\tpeer s\tratio\tgoal\tours cpu s\tpeer cpu s\tcpu ratio\t")
	fmt.Fprintf(tw, "%d photos safe\t%.2f\t%.2f\t%.2fx\t< %.0f s %s\t%.1f\t%.1f\t%.2fx\t\n", len(batch),
		safe.Seconds(), peer.Seconds(), float64(safe)/float64(peer), goalBatch.Seconds(), passFail(safe < goalBatch),
		cpu.Seconds(), peerCPU.Seconds(), float64(cpu)/float64(max(peerCPU, 1)))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "  %.0f ms a photo, %.1f photos/s; first card after %.0f ms; on 2 idle cores the CPU time is about %.1f s of wall\n",
		millis(safe)/n, n/safe.Seconds(), millis(pick(func(r batchRun) time.Duration { return r.first })), cpu.Seconds()/2)
	// On a busy machine the wall times say more about the neighbours than
	// about capture; the CPU times and the ratio do not.
	fmt.Fprintf(out, "  load average (1, 5, 15 min): %s before, %s after\n", load0, benchkit.LoadAverage())
	return nil
}

// captureBatchOnce captures batch into a fresh outbox with 2 workers.
func captureBatchOnce(ctx context.Context, batch []string) (batchRun, error) {
	dir, cleanup, err := workDir("capture")
	if err != nil {
		return batchRun{}, err
	}
	defer cleanup()
	o, err := outbox.Open(ctx, filepath.Join(dir, "outbox"), outbox.Options{Workers: 2})
	if err != nil {
		return batchRun{}, err
	}
	defer o.Close()
	var r batchRun
	cpu0 := benchkit.CPUTime()
	start := time.Now()
	res := o.Capture(ctx, batch, outbox.CaptureOptions{Force: true, OnResult: func(outbox.CaptureResult) {
		if r.first == 0 {
			r.first = time.Since(start)
		}
	}})
	r.safe, r.cpu = time.Since(start), benchkit.CPUTime()-cpu0
	for _, c := range res {
		if c.Err != nil {
			return r, c.Err
		}
	}
	return r, nil
}

// smallCopies makes the small copy of every file in batch, discarded,
// with workers goroutines, and returns the wall and CPU time.
func smallCopies(ctx context.Context, batch []string, workers int) (wall, cpu time.Duration, err error) {
	next := make(chan string)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	cpu0 := benchkit.CPUTime()
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for f := range next {
				if _, err := photo.SmallCopy(ctx, f, io.Discard, photo.Options{}); err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		})
	}
	for _, f := range batch {
		next <- f
	}
	close(next)
	wg.Wait()
	wall, cpu = time.Since(start), benchkit.CPUTime()-cpu0
	close(errs)
	return wall, cpu, <-errs
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func baseNames(ps []string) []string {
	var out []string
	for _, p := range ps {
		out = append(out, filepath.Base(p))
	}
	return out
}

// localEngine starts a real engine on 127.0.0.1 (no brain seat: turns
// stay queued, which the drain does not wait for).
func localEngine(ctx context.Context, dir string) (url, token string, stop func(), err error) {
	se, err := host.Start(ctx, host.Config{
		Engine: engine.Config{Dir: dir, MaxMediaSize: 1 << 30, Logger: slog.New(slog.DiscardHandler)},
		Addr:   "127.0.0.1:0",
	})
	if err != nil {
		return "", "", nil, err
	}
	token, err = se.Engine.Tokens().Add("bench", auth.ScopeAdmin)
	if err != nil {
		se.Close()
		return "", "", nil, err
	}
	return se.URL, token, func() { se.Close() }, nil
}

// smallJPEG is a small generated photo, different for each i.
func smallJPEG(i int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for p := 0; p < len(img.Pix); p += 4 {
		img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = byte(i), byte(i>>8), byte(p), 255
	}
	img.Set(0, 0, color.RGBA{byte(i >> 16), 1, 2, 255})
	var b bytes.Buffer
	jpeg.Encode(&b, img, nil)
	return b.Bytes()
}

// drainUntilEmpty runs the drain until nothing is pending.
func drainUntilEmpty(ctx context.Context, o *outbox.Outbox) (time.Duration, error) {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- o.Run(runCtx) }()
	for {
		c, err := o.Counts(ctx)
		if err != nil {
			return 0, err
		}
		if c.Parked > 0 {
			return 0, errors.New("an entry was parked")
		}
		if c.Pending == 0 {
			d := time.Since(start)
			stop()
			return d, <-done
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case err := <-done:
			return 0, fmt.Errorf("drain stopped: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func benchDrain(ctx context.Context, out io.Writer) error {
	dir, cleanup, err := workDir("drain")
	if err != nil {
		return err
	}
	defer cleanup()
	url, token, stopEngine, err := localEngine(ctx, filepath.Join(dir, "engine"))
	if err != nil {
		return err
	}
	defer stopEngine()

	// Small captures: the cost per entry of four requests and four commits.
	src := filepath.Join(dir, "small")
	os.MkdirAll(src, 0o755)
	for i := range *drainSmall {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("s%05d.jpg", i)), smallJPEG(i), 0o644); err != nil {
			return err
		}
	}
	o, err := outbox.Open(ctx, filepath.Join(dir, "outbox-small"), outbox.Options{Target: outbox.Target{URL: url, Token: token}})
	if err != nil {
		return err
	}
	start := time.Now()
	for _, r := range o.Capture(ctx, []string{src}, outbox.CaptureOptions{}) {
		if r.Err != nil {
			o.Close()
			return r.Err
		}
	}
	capT := time.Since(start)
	d, err := drainUntilEmpty(ctx, o)
	o.Close()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "drain: %d small captures over loopback to a local engine (3 entries at once, 4 steps each)\n", *drainSmall)
	fmt.Fprintf(out, "  captured in %.2f s (%.0f/s); delivered in %.2f s: %.0f captures/s\n",
		capT.Seconds(), float64(*drainSmall)/capT.Seconds(), d.Seconds(), float64(*drainSmall)/d.Seconds())

	// Large originals, in a child process so its peak RSS is the drain's
	// alone; two sizes show whether memory grows with file size.
	fmt.Fprintf(out, "drain: %d large originals each, streamed from disk (capture + drain in a child process)\n", *drainBigN)
	for _, mb := range []int{*drainBigMB / 5, *drainBigMB} {
		big := filepath.Join(dir, fmt.Sprintf("big%d", mb))
		os.MkdirAll(big, 0o755)
		for i := range *drainBigN {
			if err := writePadded(filepath.Join(big, fmt.Sprintf("b%d.jpg", i)), i, int64(mb)<<20); err != nil {
				return err
			}
		}
		var res drainResult
		if err := runChild(ctx, "_drain", []string{filepath.Join(dir, fmt.Sprintf("outbox-big%d", mb)), big, url, token}, &res); err != nil {
			return err
		}
		capS, drainS, kb := res.Capture.Seconds(), res.Drain.Seconds(), res.PeakKB
		total := float64(*drainBigN*mb) * (1 << 20) / 1e6
		verdict := "meets"
		if kb > 150*1024 {
			verdict = "MISSES"
		}
		fmt.Fprintf(out, "  %3d MB originals: capture %.1f MB/s, drain %.1f MB/s; peak RSS %.0f MB (goal < 150 MB: %s)\n",
			mb, total/capS, total/drainS, float64(kb)/1024, verdict)
		os.RemoveAll(big)
	}
	return nil
}

// writePadded writes a valid small JPEG followed by random bytes up to
// size: decoders stop at the end-of-image marker, so it captures like a
// photo while weighing as much as a large original.
func writePadded(path string, i int, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	head := smallJPEG(1_000_000 + i)
	if _, err := f.Write(head); err != nil {
		f.Close()
		return err
	}
	if _, err := io.CopyN(f, rand.Reader, size-int64(len(head))); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// drainResult is what the _drain child returns.
type drainResult struct {
	Capture time.Duration `json:"capture"`
	Drain   time.Duration `json:"drain"`
	PeakKB  int           `json:"peak_kb"`
}

// childDrain captures a folder into an outbox and drains it to an engine
// (args: the outbox folder, the source folder, the engine's URL and a
// token), then returns the capture's and the drain's times and its peak
// RSS in kB.
func childDrain(ctx context.Context, args []string) (any, error) {
	if err := childArgs(args, "OUTBOX", "SOURCE", "URL", "TOKEN"); err != nil {
		return nil, err
	}
	o, err := outbox.Open(ctx, args[0], outbox.Options{Target: outbox.Target{URL: args[2], Token: args[3]}})
	if err != nil {
		return nil, err
	}
	defer o.Close()
	start := time.Now()
	for _, r := range o.Capture(ctx, []string{args[1]}, outbox.CaptureOptions{}) {
		if r.Err != nil {
			return nil, r.Err
		}
	}
	capT := time.Since(start)
	d, err := drainUntilEmpty(ctx, o)
	if err != nil {
		return nil, err
	}
	kb, err := peakKB()
	if err != nil {
		return nil, err
	}
	return drainResult{Capture: capT, Drain: d, PeakKB: kb}, nil
}
