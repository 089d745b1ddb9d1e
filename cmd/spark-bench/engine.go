package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/internal/version"
)

// The goals, each a figure against its peer on the same machine.
const (
	goalCreates1    = 0.70 // 1 client: at least 70% of the raw fsync rate
	goalCreates32   = 0.50 // 32 clients: at least 50% of the bare handler
	goalRebuild     = 0.50 // rebuild: at least 50% of a bare bulk insert
	goalRebuildRSS  = 200 << 20
	goalMedia       = 0.50 // media: at least 50% of a bare hashing handler
	benchClientsLow = 16
	benchClientsHi  = 32
)

var (
	engineDuration    = flag.Duration("duration", 1500*time.Millisecond, "the engine benchmark's length of each fsync, handler and create run")
	engineRebuildOps  = flag.Int("rebuild-ops", 1_000_000, "ops in the log the engine benchmark's rebuild folds")
	engineRebuildRuns = flag.Int("rebuild-runs", 1, "runs of the engine benchmark's rebuild and of its bulk-insert peer")
	engineMediaMB     = flag.Int("media-mb", 50, "size of the engine benchmark's media upload in MB (MiB)")
	engineKeep        = flag.Bool("keep", false, "keep the engine benchmark's data directory afterwards")
	engineOnly        = flag.String("only", "", `"creates": the engine benchmark measures only the creates and their peers (fsync, bare JSON handler)`)
)

func init() {
	register("engine", bench{
		help: "the engine beside its peers: creates over HTTP (1 and 32 clients) beside raw fsync and a bare JSON handler, a rebuild beside a bare bulk insert, a media PUT beside a bare hashing handler",
		run:  benchEngine,
	})
	registerChild(enginePhaseChild, childEnginePhase)
}

type benchOptions struct {
	dir         string
	runs        int
	duration    time.Duration
	rebuildOps  int
	rebuildRuns int
	mediaMB     int
	keep        bool
	only        string
}

// benchEngine measures the engine on this machine and disk, each figure
// beside its peer, every measurement in a child process of its own. It
// was spark-engine bench: its flags and the lines it prints are the same.
func benchEngine(ctx context.Context, stdout io.Writer) error {
	o := benchOptions{dir: *benchDir, runs: *runs, duration: *engineDuration, rebuildOps: *engineRebuildOps,
		rebuildRuns: *engineRebuildRuns, mediaMB: *engineMediaMB, keep: *engineKeep, only: *engineOnly}
	if o.only != "" && o.only != "creates" {
		return fmt.Errorf("--only takes \"creates\" or nothing, got %q", o.only)
	}
	if o.runs < 1 || o.rebuildRuns < 1 || o.rebuildOps < 1 || o.mediaMB < 1 || o.duration <= 0 {
		return fmt.Errorf("--runs, --rebuild-runs, --rebuild-ops, --media-mb and --duration must be positive")
	}
	root := o.dir
	var err error
	if root == "" {
		if root, err = os.MkdirTemp("", "spark-bench-"); err != nil {
			return fmt.Errorf("make the bench directory: %w", err)
		}
	} else {
		if err := os.MkdirAll(root, 0o700); err != nil {
			return fmt.Errorf("make the bench directory: %w", err)
		}
		if root, err = os.MkdirTemp(root, "spark-bench-"); err != nil {
			return fmt.Errorf("make the bench directory: %w", err)
		}
	}
	if !o.keep {
		defer os.RemoveAll(root)
	}
	b := &bencher{opts: o, root: root, stderr: os.Stderr}
	loadBefore := benchkit.LoadAverage()
	t, err := b.run(ctx)
	if err != nil {
		return err
	}
	// The heading keeps the words of spark-engine bench: scripts read it.
	fmt.Fprintf(stdout, "spark-engine bench %s: %s, %s/%s, %d CPUs, data in %s\n", version.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), root)
	if loadBefore != "" {
		// Other work on the machine skews every figure; say how busy it was.
		fmt.Fprintf(stdout, "load average (1, 5, 15 min): %s before, %s after\n", loadBefore, benchkit.LoadAverage())
	}
	fmt.Fprintf(stdout, "medians of %d runs of %s (rebuild: %d run(s) of %s ops; media: %d MB)\n\n", o.runs, o.duration, o.rebuildRuns, commas(int64(o.rebuildOps)), o.mediaMB)
	t.print(stdout)
	return nil
}

type bencher struct {
	opts   benchOptions
	root   string
	stderr io.Writer
	n      int
}

// phase runs one measurement in a child process (this same program) and
// returns what it measured.
func (b *bencher) phase(ctx context.Context, name string, args ...string) (phaseResult, error) {
	b.n++
	dir := filepath.Join(b.root, fmt.Sprintf("%02d-%s", b.n, name))
	if i := slices.Index(args, "--dir"); i >= 0 {
		dir = args[i+1]
		args = slices.Delete(slices.Clone(args), i, i+2)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return phaseResult{}, err
	}
	fmt.Fprintf(b.stderr, "bench: %s %s\n", name, strings.Join(args, " "))
	var res phaseResult
	if err := runChild(ctx, enginePhaseChild, append([]string{name, "--dir", dir}, args...), &res); err != nil {
		return phaseResult{}, fmt.Errorf("bench phase %s: %w", name, err)
	}
	return res, nil
}

// median runs a phase several times and takes the median of each figure.
func (b *bencher) median(ctx context.Context, runs int, name string, args ...string) (phaseResult, error) {
	rs, err := b.interleave(ctx, runs, spec{name, args})
	if err != nil {
		return phaseResult{}, err
	}
	return rs[0], nil
}

// spec names a phase and its arguments.
type spec struct {
	name string
	args []string
}

// interleave runs the phases one after the other, runs times over, and
// returns each one's medians. A figure and its peer measured in alternation
// see the same weather: a disk or CPU that other work slows for a while
// slows both, not only whichever ran then.
func (b *bencher) interleave(ctx context.Context, runs int, specs ...spec) ([]phaseResult, error) {
	all := make([][]phaseResult, len(specs))
	for range runs {
		for i, sp := range specs {
			r, err := b.phase(ctx, sp.name, sp.args...)
			if err != nil {
				return nil, err
			}
			all[i] = append(all[i], r)
		}
	}
	out := make([]phaseResult, len(specs))
	for i, rs := range all {
		out[i] = medianRun(rs)
	}
	return out, nil
}

// medianRun takes the run of median throughput (ops/s, or bytes/s for an
// upload), with its own count of fsync batches, and the medians of the
// latencies and the peak RSS.
func medianRun(rs []phaseResult) phaseResult {
	slices.SortFunc(rs, func(x, y phaseResult) int { return cmpFloat(x.throughput(), y.throughput()) })
	m := rs[len(rs)/2]
	m.P50 = medianOf(rs, func(r phaseResult) time.Duration { return r.P50 })
	m.P99 = medianOf(rs, func(r phaseResult) time.Duration { return r.P99 })
	m.PeakRSS = int64(medianOf(rs, func(r phaseResult) time.Duration { return time.Duration(r.PeakRSS) }))
	return m
}

func medianOf(rs []phaseResult, f func(phaseResult) time.Duration) time.Duration {
	v := make([]time.Duration, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return benchkit.Median(v)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (b *bencher) run(ctx context.Context) (*table, error) {
	o := b.opts
	d := o.duration.String()
	runs := o.runs
	clients := func(n int) []string { return []string{"--duration", d, "--clients", strconv.Itoa(n)} }
	short, err := b.interleave(ctx, runs,
		spec{"fsync", []string{"--duration", d}},
		spec{"creates", clients(1)},
		spec{"bare-json", clients(benchClientsHi)},
		spec{"creates", clients(benchClientsHi)},
		spec{"bare-json", clients(benchClientsLow)},
		spec{"bare-durable", clients(1)},
		spec{"bare-durable", clients(benchClientsHi)},
		spec{"creates", append(clients(benchClientsHi), "--least")},
		spec{"bare-durable", append(clients(benchClientsHi), "--least")},
	)
	if err != nil {
		return nil, err
	}
	fsync, c1, bare32, c32, bare16, floor1, floor32 := short[0], short[1], short[2], short[3], short[4], short[5], short[6]
	least32, leastFloor32 := short[7], short[8]
	t := &table{}
	t.add(row{what: "raw write+fsync, 1 record", value: rate(fsync.rate(), "/s"), note: "the floor under every create"})
	t.add(row{what: fmt.Sprintf("bare JSON handler, %d clients", benchClientsLow), value: rate(bare16.rate(), "req/s"), note: latency(bare16)})
	t.add(row{what: fmt.Sprintf("bare JSON handler, %d clients", benchClientsHi), value: rate(bare32.rate(), "req/s"), note: latency(bare32)})
	t.add(row{what: "bare JSON + write+fsync, 1 client", value: rate(floor1.rate(), "req/s"),
		note: fmt.Sprintf("%s; the floor of a durable create over HTTP: %.0f%% of raw write+fsync", latency(floor1), 100*floor1.rate()/fsync.rate())})
	t.add(row{what: fmt.Sprintf("bare JSON + group fsync, %d clients", benchClientsHi), value: rate(floor32.rate(), "req/s"),
		note: fmt.Sprintf("%s; the floor of durable creates over HTTP: %.0f%% of the bare JSON handler", latency(floor32), 100*floor32.rate()/bare32.rate())})
	t.add(row{what: "creates over HTTP, 1 client", value: rate(c1.rate(), "/s"), peer: "raw write+fsync",
		ratio: c1.rate() / fsync.rate(), goal: goalCreates1,
		note: fmt.Sprintf("%s; %.0f%% of the floor", latency(c1), 100*c1.rate()/floor1.rate())})
	t.add(row{what: fmt.Sprintf("creates over HTTP, %d clients", benchClientsHi), value: rate(c32.rate(), "/s"), peer: fmt.Sprintf("bare JSON, %d clients", benchClientsHi),
		ratio: c32.rate() / bare32.rate(), goal: goalCreates32,
		note: fmt.Sprintf("%s; %.0f%% of the floor", latency(c32), 100*c32.rate()/floor32.rate())})
	// The least a create folds (one row: a note with no caption and no
	// request id), beside the floor of the same body: how near the floor
	// a create can come at all while the mirror folds each one.
	t.add(row{what: fmt.Sprintf("bare JSON + group fsync, least create, %d clients", benchClientsHi), value: rate(leastFloor32.rate(), "req/s"),
		note: fmt.Sprintf("%s; the floor of the least create's body", latency(leastFloor32))})
	t.add(row{what: fmt.Sprintf("creates over HTTP, least fold, %d clients", benchClientsHi), value: rate(least32.rate(), "/s"),
		note: fmt.Sprintf("%s; a note with no caption and no request id, its fold one row; %.0f%% of its floor", latency(least32), 100*least32.rate()/leastFloor32.rate())})
	if o.only == "creates" {
		return t, nil
	}

	ops := strconv.Itoa(o.rebuildOps)
	logDir := filepath.Join(b.root, "rebuild")
	if _, err := b.phase(ctx, "rebuild-prep", "--dir", logDir, "--ops", ops); err != nil {
		return nil, err
	}
	rebuild, err := b.median(ctx, o.rebuildRuns, "rebuild", "--dir", logDir, "--ops", ops)
	if err != nil {
		return nil, err
	}
	bulk, err := b.median(ctx, o.rebuildRuns, "bulk-insert", "--ops", ops)
	if err != nil {
		return nil, err
	}

	mb := []string{"--mb", strconv.Itoa(o.mediaMB)}
	up, err := b.interleave(ctx, runs, spec{"bare-media", mb}, spec{"media", mb}, spec{"disk-write", mb})
	if err != nil {
		return nil, err
	}
	bareMedia, media, disk := up[0], up[1], up[2]

	t.add(row{what: fmt.Sprintf("bare bulk insert, %s ops", commas(int64(o.rebuildOps))), value: rate(bulk.rate(), "ops/s"), note: "peak RSS " + mib(bulk.PeakRSS)})
	rebuildRSSok := rebuild.PeakRSS > 0 && rebuild.PeakRSS < goalRebuildRSS
	t.add(row{what: fmt.Sprintf("rebuild, %s ops", commas(int64(o.rebuildOps))), value: rate(rebuild.rate(), "ops/s"), peer: "bare bulk insert",
		ratio: rebuild.rate() / bulk.rate(), goal: goalRebuild,
		note: fmt.Sprintf("peak RSS %s (goal < %s: %s)", mib(rebuild.PeakRSS), mib(goalRebuildRSS), yesNo(rebuildRSSok))})
	t.add(row{what: fmt.Sprintf("bare hashing handler, %d MB PUT", o.mediaMB), value: fmt.Sprintf("%.0f MB/s", bareMedia.mbps()), note: "peak RSS " + mib(bareMedia.PeakRSS)})
	t.add(row{what: fmt.Sprintf("raw write+fsync, %d MB file", o.mediaMB), value: fmt.Sprintf("%.0f MB/s", disk.mbps()), note: "the disk's bound on a durable upload"})
	t.add(row{what: fmt.Sprintf("media PUT, %d MB", o.mediaMB), value: fmt.Sprintf("%.0f MB/s", media.mbps()), peer: "bare hashing handler",
		ratio: media.mbps() / bareMedia.mbps(), goal: goalMedia, note: "peak RSS " + mib(media.PeakRSS)})
	return t, nil
}

type row struct {
	what, value, peer string
	ratio, goal       float64
	note              string
}

type table struct{ rows []row }

func (t *table) add(r row) { t.rows = append(t.rows, r) }

func (t *table) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tMEASURED\tPEER\tOF PEER\tGOAL\tMET\tNOTES")
	for _, r := range t.rows {
		peer, of, goal, met := "-", "-", "-", "-"
		if r.peer != "" {
			peer = r.peer
			of = fmt.Sprintf("%.0f%%", r.ratio*100)
			goal = fmt.Sprintf(">= %.0f%%", r.goal*100)
			met = yesNo(r.ratio >= r.goal)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.what, r.value, peer, of, goal, met, r.note)
	}
	tw.Flush()
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

func rate(v float64, unit string) string { return commas(int64(v+0.5)) + " " + unit }

func latency(r phaseResult) string {
	s := fmt.Sprintf("p50 %s, p99 %s", msText(r.P50), msText(r.P99))
	if r.Batches > 0 {
		s += fmt.Sprintf(", %.1f creates per fsync", float64(r.Count)/float64(r.Batches))
	}
	return s
}

func msText(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

func mib(n int64) string { return fmt.Sprintf("%.0f MB", float64(n)/(1<<20)) }

// commas writes n with thousands separators.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
