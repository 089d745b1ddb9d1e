package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/disintegration/imaging"

	"github.com/sparkfamily/spark/photo"
)

var (
	photosDir = flag.String("photos", "../shared/photos", "folder of test photos for smallcopy")
	runs      = flag.Int("runs", 3, "timed runs per photo and method (the median is shown)")
	rssMode   = flag.String("rss-mode", "", "internal: what the _rss child measures (ours, imaging, decode)")
	rssFile   = flag.String("rss-file", "", "internal: the photo the _rss child reads")
)

// Goals from the outbox issue: our small copy at most 2x vipsthumbnail per
// JPEG photo and 3x per HEIC photo.
const (
	goalJPEG = 2.0
	goalHEIC = 3.0
)

func init() {
	register("smallcopy", bench{
		help: "small copy per photo (1 and 2 workers) vs imaging, Go decode and vipsthumbnail; peak RSS; PSNR",
		run:  benchSmallCopy,
	})
	register("_rss", bench{hidden: true, run: childRSS})
}

func listPhotos(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the photos folder (set --photos): %w", err)
	}
	var files []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif":
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no photos in %s", dir)
	}
	return files, nil
}

// timeIt runs fn n times and returns the median duration.
func timeIt(n int, fn func() error) (time.Duration, error) {
	d, _, err := timeCPU(n, fn)
	return d, err
}

// timeCPU runs fn n times and returns the median wall time and the mean
// CPU time of this process per run. On a busy machine the wall time
// grows with the other load; the CPU time shows the work itself.
func timeCPU(n int, fn func() error) (wall, cpu time.Duration, err error) {
	ds := make([]time.Duration, 0, n)
	c0 := cpuTime()
	for range n {
		t := time.Now()
		if err := fn(); err != nil {
			return 0, 0, err
		}
		ds = append(ds, time.Since(t))
	}
	cpu = (cpuTime() - c0) / time.Duration(n)
	slices.Sort(ds)
	return ds[len(ds)/2], cpu, nil
}

// throughput returns the wall time per photo when workers goroutines make
// n small copies each of file at once.
func throughput(ctx context.Context, file string, workers, n int) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	t := time.Now()
	for range workers {
		wg.Go(func() {
			for range n {
				if _, err := photo.SmallCopy(ctx, file, io.Discard, photo.Options{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return time.Since(t) / time.Duration(workers*n), nil
}

func imagingFit(file string) error {
	img, err := imaging.Open(file, imaging.AutoOrientation(true))
	if err != nil {
		return err
	}
	imaging.Fit(img, photo.DefaultMaxEdge, photo.DefaultMaxEdge, imaging.Lanczos)
	return nil
}

// quality returns the PSNR of our shrink against one Lanczos pass over the
// full picture, both before JPEG encoding.
func quality(ctx context.Context, file string) (float64, error) {
	img, info, err := photo.Decode(ctx, file, photo.Options{})
	if err != nil {
		return 0, err
	}
	o := info.Orientation
	if info.Format == photo.FormatHEIC {
		o = 1 // decoded upright already
	}
	return photo.PSNR(photo.Shrink(img, o, photo.DefaultMaxEdge), photo.Reference(img, o, photo.DefaultMaxEdge)), nil
}

// vips runs vipsthumbnail once on files (which may repeat) and returns the
// wall time and the CPU time it used.
func vips(ctx context.Context, outDir string, env []string, files ...string) (wall, cpu time.Duration, err error) {
	args := append([]string{"-s", strconv.Itoa(photo.DefaultMaxEdge), "-o", filepath.Join(outDir, "%s.jpg[Q=85]")}, files...)
	cmd := exec.CommandContext(ctx, "vipsthumbnail", args...)
	cmd.Env = append(os.Environ(), env...)
	t := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("vipsthumbnail: %v: %s", err, out)
	}
	return time.Since(t), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// vipsPerPhoto is vipsthumbnail's wall and CPU time for one photo without
// its start-up: one call with the photo repeated n+1 times less the
// fastest of n calls with it once.
func vipsPerPhoto(ctx context.Context, outDir string, env []string, file string, n int) (wall, cpu time.Duration, err error) {
	one, oneCPU := time.Duration(1<<62), time.Duration(1<<62)
	for range n {
		w, c, err := vips(ctx, outDir, env, file)
		if err != nil {
			return 0, 0, err
		}
		one, oneCPU = min(one, w), min(oneCPU, c)
	}
	many := make([]string, n+1)
	for i := range many {
		many[i] = file
	}
	all, allCPU, err := vips(ctx, outDir, env, many...)
	if err != nil {
		return 0, 0, err
	}
	return max(all-one, 0) / time.Duration(n), max(allCPU-oneCPU, 0) / time.Duration(n), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/1e6) }

func benchSmallCopy(ctx context.Context, out io.Writer) error {
	files, err := listPhotos(*photosDir)
	if err != nil {
		return err
	}
	n := max(*runs, 1)
	_, vipsErr := exec.LookPath("vipsthumbnail")
	tmp, err := os.MkdirTemp("", "spark-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// The HEIC decoder's one-time compile, measured apart and paid before
	// the timed runs (the app pays it at start-up with photo.Warm).
	t := time.Now()
	if err := photo.Warm(ctx); err != nil {
		return fmt.Errorf("warm the HEIC decoder: %w", err)
	}
	warm := time.Since(t)

	fmt.Fprintf(out, "small copy: long edge %d px, JPEG q%d, median of %d runs, GOMAXPROCS=%s, %s\n",
		photo.DefaultMaxEdge, photo.DefaultQuality, n, gomaxprocs(), time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(out, "ours = decode + pre-shrink + Lanczos + orient + encode; imaging = Open(AutoOrientation) + Fit(Lanczos), no encode;\n")
	fmt.Fprintf(out, "vips 1t = vipsthumbnail on one thread (VIPS_CONCURRENCY=1, as ours decodes on one core), start-up excluded;\n")
	fmt.Fprintf(out, "vips = the same with its default threads; ours/vips and the goal compare wall times with vips 1t;\n")
	fmt.Fprintf(out, "cpu = CPU time per photo of all threads (steadier than wall time on a busy machine);\n")
	fmt.Fprintf(out, "PSNR = ours vs one Lanczos pass over the full picture, before encoding; load average now: %s\n\n", loadAvg())
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "photo\tMP\tours 1w ms\tours 2w ms/photo\tGo decode ms\timaging ms\tvips 1t ms\tvips ms\tours/vips\tgoal\tours cpu ms\tvips cpu ms\tcpu ratio\tPSNR dB\t")
	type sums struct{ ours, vips, oursCPU, vipsCPU time.Duration }
	var jpegSum, heicSum sums
	var jpegFiles []string
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		var res photo.Result
		ours, oursCPU, err := timeCPU(n, func() error {
			var err error
			res, err = photo.SmallCopy(ctx, f, io.Discard, photo.Options{})
			return err
		})
		if err != nil {
			return err
		}
		two, err := throughput(ctx, f, 2, n)
		if err != nil {
			return err
		}
		dec, err := timeIt(n, func() error { _, _, err := photo.Decode(ctx, f, photo.Options{}); return err })
		if err != nil {
			return err
		}
		imgCol := "n/a"
		if d, err := timeIt(n, func() error { return imagingFit(f) }); err == nil {
			imgCol = ms(d)
		}
		psnr, err := quality(ctx, f)
		if err != nil {
			return err
		}
		vips1Col, vipsCol, ratioCol, goalCol, vipsCPUCol, cpuRatioCol := "absent", "absent", "-", "-", "-", "-"
		goal := goalJPEG
		if res.Source.Format == photo.FormatHEIC {
			goal = goalHEIC
		}
		if vipsErr == nil {
			v, vc, err := vipsPerPhoto(ctx, tmp, []string{"VIPS_CONCURRENCY=1"}, f, n)
			if err != nil {
				return err
			}
			vt, _, err := vipsPerPhoto(ctx, tmp, nil, f, n)
			if err != nil {
				return err
			}
			vips1Col, vipsCol, vipsCPUCol = ms(v), ms(vt), ms(vc)
			if vc > 0 {
				cpuRatioCol = fmt.Sprintf("%.2fx", float64(oursCPU)/float64(vc))
			}
			ratio := float64(ours) / float64(v)
			ratioCol = fmt.Sprintf("%.2fx", ratio)
			goalCol = fmt.Sprintf("<=%.0fx %s", goal, passFail(ratio <= goal))
			if res.Source.Format == photo.FormatHEIC {
				heicSum = sums{heicSum.ours + ours, heicSum.vips + v, heicSum.oursCPU + oursCPU, heicSum.vipsCPU + vc}
			} else {
				jpegSum = sums{jpegSum.ours + ours, jpegSum.vips + v, jpegSum.oursCPU + oursCPU, jpegSum.vipsCPU + vc}
			}
		}
		if res.Source.Format == photo.FormatJPEG {
			jpegFiles = append(jpegFiles, f)
		}
		mp := float64(res.Source.Width*res.Source.Height) / 1e6
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n",
			filepath.Base(f), mp, ms(ours), ms(two), ms(dec), imgCol, vips1Col, vipsCol, ratioCol, goalCol, ms(oursCPU), vipsCPUCol, cpuRatioCol, psnr)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if vipsErr != nil {
		fmt.Fprintln(out, "vipsthumbnail: absent (install it with: apt-get install -y libvips-tools); no ratios")
	} else {
		if jpegSum.vips > 0 {
			r := float64(jpegSum.ours) / float64(jpegSum.vips)
			fmt.Fprintf(out, "JPEG, all photos: ours %s ms vs vips 1t %s ms in sum: %.2fx (goal <= %.0fx: %s); CPU time %s ms vs %s ms: %.2fx\n",
				ms(jpegSum.ours), ms(jpegSum.vips), r, goalJPEG, passFail(r <= goalJPEG),
				ms(jpegSum.oursCPU), ms(jpegSum.vipsCPU), float64(jpegSum.oursCPU)/float64(max(jpegSum.vipsCPU, 1)))
		}
		if heicSum.vips > 0 {
			r := float64(heicSum.ours) / float64(heicSum.vips)
			fmt.Fprintf(out, "HEIC: ours %s ms vs vips 1t %s ms: %.2fx (goal <= %.0fx: %s); CPU time %s ms vs %s ms: %.2fx\n",
				ms(heicSum.ours), ms(heicSum.vips), r, goalHEIC, passFail(r <= goalHEIC),
				ms(heicSum.oursCPU), ms(heicSum.vipsCPU), float64(heicSum.oursCPU)/float64(max(heicSum.vipsCPU, 1)))
		}
		if len(jpegFiles) > 0 {
			for _, c := range []struct{ label, env string }{{"default threads", ""}, {"one thread", "VIPS_CONCURRENCY=1"}} {
				var env []string
				if c.env != "" {
					env = []string{c.env}
				}
				d, _, err := vips(ctx, tmp, env, jpegFiles...)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "vipsthumbnail, all %d JPEGs in one call (%s): %s ms a photo, start-up included once\n",
					len(jpegFiles), c.label, ms(d/time.Duration(len(jpegFiles))))
			}
		}
	}
	fmt.Fprintf(out, "HEIC decoder one-time WebAssembly compile (photo.Warm, off the UI path): %s ms\n", ms(warm))

	// Peak memory, each in a fresh child so one measurement cannot
	// inherit another's heap.
	big := largestRotated(files)
	if big == "" {
		return nil
	}
	fmt.Fprintf(out, "\npeak RSS (VmHWM of a fresh process) on %s:\n", filepath.Base(big))
	for _, mode := range []string{"decode", "ours", "imaging"} {
		kb, err := measureRSS(ctx, mode, big)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %-8s %4d MB\n", mode, kb/1024)
	}
	return nil
}

// loadAvg is the one-minute load average, to judge how busy the machine
// was while it measured.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

func passFail(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

func gomaxprocs() string {
	if v := os.Getenv("GOMAXPROCS"); v != "" {
		return v
	}
	return "default"
}

// largestRotated picks the photo with the most pixels among those whose
// orientation turns them a quarter, or the largest photo when none does.
func largestRotated(files []string) string {
	best, bestPx, bestRot := "", 0, false
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		info, err := photo.Probe(fh)
		fh.Close()
		if err != nil || info.Format != photo.FormatJPEG {
			continue
		}
		rot := info.Orientation >= 5
		px := info.Width * info.Height
		if (rot && !bestRot) || (rot == bestRot && px > bestPx) {
			best, bestPx, bestRot = f, px, rot
		}
	}
	return best
}

func measureRSS(ctx context.Context, mode, file string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	out, err := exec.CommandContext(ctx, exe, "_rss", "--rss-mode", mode, "--rss-file", file).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return 0, fmt.Errorf("rss child %s: %v: %s", mode, err, ee.Stderr)
		}
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// childRSS does one measured job and prints this process's peak resident
// set size in kB.
func childRSS(ctx context.Context, out io.Writer) error {
	var err error
	switch *rssMode {
	case "ours":
		_, err = photo.SmallCopy(ctx, *rssFile, io.Discard, photo.Options{})
	case "imaging":
		err = imagingFit(*rssFile)
	case "decode":
		_, _, err = photo.Decode(ctx, *rssFile, photo.Options{})
	default:
		err = fmt.Errorf("unknown --rss-mode %q", *rssMode)
	}
	if err != nil {
		return err
	}
	kb, err := vmHWM()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, kb)
	return nil
}

// vmHWM reads the peak resident set size from /proc/self/status.
func vmHWM() (int, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("peak RSS needs Linux's /proc: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
