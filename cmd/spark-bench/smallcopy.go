package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/disintegration/imaging"

	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/outbox/photo"
	"github.com/sparkfamily/spark/outbox/photo/phototest"
)

var (
	photosDir = flag.String("photos", "../shared/photos", "folder of test photos for smallcopy; for words, of photos with NAME.txt beside (made when not given)")
	runs      = flag.Int("runs", 3, "timed runs per photo and method in smallcopy, of each short measurement in engine (the median is shown)")
)

// Goals from issue 10, against vipsthumbnail on one thread in the same
// run: the JPEGs in sum and the 24 MP rotated JPEG at most 1.2x its time,
// the iPhone HEIC at most 2.5x; the 24 MP small copy's peak RSS under
// 100 MB.
const (
	goalJPEG  = 1.2
	goalHEIC  = 2.5
	goalRSSMB = 100
)

func init() {
	register("smallcopy", bench{
		help: "small copy per photo (1 and 2 workers) vs imaging, Go decode and vipsthumbnail; peak RSS; PSNR",
		run:  benchSmallCopy,
	})
	registerChild("_rss", childRSS)
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
	c0 := benchkit.CPUTime()
	for range n {
		t := time.Now()
		if err := fn(); err != nil {
			return 0, 0, err
		}
		ds = append(ds, time.Since(t))
	}
	cpu = (benchkit.CPUTime() - c0) / time.Duration(n)
	return benchkit.Median(ds), cpu, nil
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

// quality returns the PSNR against one Lanczos pass over the full picture
// (phototest.Reference), before JPEG encoding, of our small picture as
// SmallCopy makes it (a JPEG decoded at a reduced size), and of the same
// resize of the full-size decode: the two differ by what decoding at a
// reduced size costs.
func quality(ctx context.Context, file string) (ours, full float64, err error) {
	small, res, err := photo.SmallPicture(ctx, file, photo.Options{})
	if err != nil {
		return 0, 0, err
	}
	img, info, err := photo.Decode(ctx, file, photo.Options{})
	if err != nil {
		return 0, 0, err
	}
	o := info.Orientation
	if info.Format == photo.FormatHEIC {
		o = 1 // Decode turns a HEIC upright
	}
	w, h := res.Width, res.Height
	if o >= 5 {
		w, h = h, w // the size before the orientation
	}
	ref := phototest.Reference(img, o, w, h)
	return phototest.PSNR(small, ref), phototest.PSNR(photo.Shrink(img, o, photo.DefaultMaxEdge), ref), nil
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

// timing is one measured job: its median wall time and its CPU time per
// run.
type timing struct{ wall, cpu time.Duration }

// compare times our small copy of file and vipsthumbnail's, n runs each,
// interleaved so that both see the same load on a shared machine: each
// run times SmallCopy once and vipsthumbnail on the photo once and twice
// in one call (env, on one thread or its default threads), whose
// difference is its time for the photo without its start-up. It returns
// the medians, with the mean CPU times.
func compare(ctx context.Context, outDir, file string, n int) (ours, vips1, vipsN timing, err error) {
	var ow, v1w, vNw []time.Duration
	var oc, v1c, vNc time.Duration
	for range n {
		c0, t := benchkit.CPUTime(), time.Now()
		if _, err := photo.SmallCopy(ctx, file, io.Discard, photo.Options{}); err != nil {
			return ours, vips1, vipsN, err
		}
		ow = append(ow, time.Since(t))
		oc += benchkit.CPUTime() - c0
		for _, v := range []struct {
			env  []string
			wall *[]time.Duration
			cpu  *time.Duration
		}{{[]string{"VIPS_CONCURRENCY=1"}, &v1w, &v1c}, {nil, &vNw, &vNc}} {
			w1, c1, err := vips(ctx, outDir, v.env, file)
			if err != nil {
				return ours, vips1, vipsN, err
			}
			w2, c2, err := vips(ctx, outDir, v.env, file, file)
			if err != nil {
				return ours, vips1, vipsN, err
			}
			*v.wall = append(*v.wall, max(w2-w1, 0))
			*v.cpu += max(c2-c1, 0)
		}
	}
	d := time.Duration(n)
	return timing{benchkit.Median(ow), oc / d}, timing{benchkit.Median(v1w), v1c / d}, timing{benchkit.Median(vNw), vNc / d}, nil
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

	fmt.Fprintf(out, "small copy: long edge %d px, JPEG q%d, median of %d runs, GOMAXPROCS=%s, %d CPUs, %s\n",
		photo.DefaultMaxEdge, photo.DefaultQuality, n, gomaxprocs(), runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(out, "ours = decode (a JPEG at 1/2, 1/4 or 1/8 when that still holds the small copy; HEIC tiles in parallel) + pre-shrink + Lanczos + orient + encode;\n")
	fmt.Fprintf(out, "imaging = Open(AutoOrientation) + Fit(Lanczos), no encode; Go decode = photo.Decode, full size;\n")
	fmt.Fprintf(out, "vips 1t = vipsthumbnail on one thread (VIPS_CONCURRENCY=1), start-up excluded, timed in turn with ours;\n")
	fmt.Fprintf(out, "vips = the same with its default threads; ours/vips and the goal compare wall times with vips 1t;\n")
	fmt.Fprintf(out, "cpu = CPU time per photo of all threads (steadier than wall time on a busy machine);\n")
	fmt.Fprintf(out, "PSNR = ours vs one Lanczos pass over the full picture, before encoding; full = the same resize of a full-size decode\n")
	fmt.Fprintf(out, "load average (1, 5, 15 min) at the start: %s\n\n", benchkit.LoadAverage())
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "photo\tMP\tours 1w ms\tours 2w ms/photo\tGo decode ms\timaging ms\tvips 1t ms\tvips ms\tours/vips\tgoal\tours cpu ms\tvips cpu ms\tcpu ratio\tPSNR dB\tfull dB\t")
	// sums of the figures of issue 10: all JPEGs, the 24 MP rotated JPEG
	// and the HEIC.
	type sums struct {
		n                            int
		ours, vips, oursCPU, vipsCPU time.Duration
	}
	add := func(s *sums, ours, vips timing) {
		*s = sums{s.n + 1, s.ours + ours.wall, s.vips + vips.wall, s.oursCPU + ours.cpu, s.vipsCPU + vips.cpu}
	}
	var jpegSum, bigSum, heicSum sums
	var jpegFiles []string
	big := largestRotated(files)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		info, err := photo.Probe(fh)
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		var ours, vips1, vipsN timing
		if vipsErr == nil {
			if ours, vips1, vipsN, err = compare(ctx, tmp, f, n); err != nil {
				return err
			}
		} else if ours.wall, ours.cpu, err = timeCPU(n, func() error {
			_, err := photo.SmallCopy(ctx, f, io.Discard, photo.Options{})
			return err
		}); err != nil {
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
		psnr, psnrFull, err := quality(ctx, f)
		if err != nil {
			return err
		}
		vips1Col, vipsCol, ratioCol, goalCol, vipsCPUCol, cpuRatioCol := "absent", "absent", "-", "-", "-", "-"
		if vipsErr == nil {
			vips1Col, vipsCol, vipsCPUCol = ms(vips1.wall), ms(vipsN.wall), ms(vips1.cpu)
			if vips1.cpu > 0 {
				cpuRatioCol = fmt.Sprintf("%.2fx", float64(ours.cpu)/float64(vips1.cpu))
			}
			if vips1.wall > 0 {
				ratioCol = fmt.Sprintf("%.2fx", float64(ours.wall)/float64(vips1.wall))
			}
			switch {
			case info.Format == photo.FormatHEIC:
				add(&heicSum, ours, vips1)
				goalCol = goalText(ours.wall, vips1.wall, goalHEIC)
			case info.Format == photo.FormatJPEG:
				add(&jpegSum, ours, vips1)
				if f == big {
					add(&bigSum, ours, vips1)
					goalCol = goalText(ours.wall, vips1.wall, goalJPEG)
				}
			}
		}
		if info.Format == photo.FormatJPEG {
			jpegFiles = append(jpegFiles, f)
		}
		mp := float64(info.Width*info.Height) / 1e6
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t\n",
			filepath.Base(f), mp, ms(ours.wall), ms(two), ms(dec), imgCol, vips1Col, vipsCol, ratioCol, goalCol, ms(ours.cpu), vipsCPUCol, cpuRatioCol, psnr, psnrFull)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if vipsErr != nil {
		fmt.Fprintln(out, "vipsthumbnail: absent (install it with: apt-get install -y libvips-tools); no ratios")
	} else {
		// The figures of issue 10, each beside its peer and its goal.
		fmt.Fprintln(out, "issue 10's figures (wall times; CPU times beside them):")
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "figure\tours ms\tvips 1t ms\tratio\tgoal\tours cpu ms\tvips cpu ms\tcpu ratio\t")
		for _, row := range []struct {
			name string
			s    sums
			goal float64
		}{
			{fmt.Sprintf("small copy, %d JPEGs", jpegSum.n), jpegSum, goalJPEG},
			{"small copy, " + filepath.Base(big), bigSum, goalJPEG},
			{fmt.Sprintf("small copy, %d HEIC", heicSum.n), heicSum, goalHEIC},
		} {
			if row.s.n == 0 || row.s.vips == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx\t%s\t%s\t%s\t%.2fx\t\n", row.name, ms(row.s.ours), ms(row.s.vips),
				float64(row.s.ours)/float64(row.s.vips), goalText(row.s.ours, row.s.vips, row.goal),
				ms(row.s.oursCPU), ms(row.s.vipsCPU), float64(row.s.oursCPU)/float64(max(row.s.vipsCPU, 1)))
		}
		if err := tw.Flush(); err != nil {
			return err
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
	fmt.Fprintf(out, "load average (1, 5, 15 min) at the end: %s\n", benchkit.LoadAverage())

	// Peak memory, each in a fresh child so one measurement cannot
	// inherit another's heap.
	if big == "" {
		return nil
	}
	fmt.Fprintf(out, "\npeak RSS (VmHWM of a fresh process) on %s:\n", filepath.Base(big))
	type job struct{ mode, file string }
	jobs := []job{{"decode", big}, {"ours", big}, {"imaging", big}}
	for _, f := range files {
		if ext := strings.ToLower(filepath.Ext(f)); ext == ".heic" || ext == ".heif" {
			jobs = append(jobs, job{"ours", f})
			break
		}
	}
	for _, j := range jobs {
		kb, err := measureRSS(ctx, j.mode, j.file)
		if err != nil {
			return err
		}
		note := ""
		switch {
		case j.file != big:
			note = "  on " + filepath.Base(j.file)
		case j.mode == "ours":
			note = fmt.Sprintf("  (goal < %d MB: %s)", goalRSSMB, passFail(kb/1024 < goalRSSMB))
		}
		fmt.Fprintf(out, "  %-8s %4d MB%s\n", j.mode, kb/1024, note)
	}
	return nil
}

// goalText is the goal column: the bound and whether ours/vips meets it.
func goalText(ours, vips time.Duration, goal float64) string {
	return fmt.Sprintf("<=%.1fx %s", goal, passFail(float64(ours) <= goal*float64(vips)))
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
	var kb int
	if err := runChild(ctx, "_rss", []string{mode, file}, &kb); err != nil {
		return 0, fmt.Errorf("peak RSS of %s: %w", mode, err)
	}
	return kb, nil
}

// childRSS does one measured job (args: ours, imaging or decode, and the
// photo) and returns this process's peak resident set size in kB.
func childRSS(ctx context.Context, args []string) (any, error) {
	if err := childArgs(args, "MODE", "PHOTO"); err != nil {
		return nil, err
	}
	mode, file := args[0], args[1]
	var err error
	switch mode {
	case "ours":
		_, err = photo.SmallCopy(ctx, file, io.Discard, photo.Options{})
	case "imaging":
		err = imagingFit(file)
	case "decode":
		_, _, err = photo.Decode(ctx, file, photo.Options{})
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		return nil, err
	}
	return peakKB()
}
