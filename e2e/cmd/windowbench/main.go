//go:build linux

// Command windowbench starts desktop apps in turn on an X display and
// prints, for each, the cold start to its first painted frame, when its
// screen settled, and the memory of its whole process tree a while after
// the paint: medians of a few alternating starts, with the load average.
// e2e/window-bench.sh builds the apps and runs it under Xvfb and D-Bus.
//
// The pictures are read from Xvfb's own frame buffer, which Xvfb -fbdir DIR
// keeps in DIR/Xvfb_screen0 as an XWD image: reading it costs no process
// and no round trip to the X server, so polling it every 10 ms takes
// next to nothing from the apps measured.
//
// The first painted frame is the first picture of the screen with more
// than -colours distinct colours: a blank screen or a window
// mapped but not yet drawn has a handful (its background colour), a drawn
// page's anti-aliased text and pictures hundreds. The screen settled at the
// last change of the picture seen before the memory is read. With
// -pictures N, the pictures came at the first frame with more than N
// colours: Spark's first frame without its tiles' pictures has about 3,000
// (text, the bare app's logo as many), with them over 10,000. The memory is
// the sum of Pss and Rss in /proc/PID/smaps_rollup over the app and every
// process it started (WebKit's web and network processes).
//
// Usage:
//
//	windowbench -fb DIR/Xvfb_screen0 [-runs 3] [-settle 8s] NAME=BINARY[:DATADIR] ...
//
// A DATADIR is copied afresh for each start and given to the app as
// SPARK_DATA, so every start opens the same folder.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sparkfamily/spark/internal/benchkit"
)

type app struct {
	name, bin, data string
	// inPlace starts the app on data itself, not on a fresh copy: the
	// warm-up start, whose tiles kept stay for the measured ones.
	inPlace bool
}

// start is what one start of an app measured.
type start struct {
	paint, settled time.Duration
	pictures       time.Duration // 0: never (or -pictures not set)
	pss, rss       int64         // bytes, whole tree
	procs          int
}

func main() {
	runs := flag.Int("runs", 3, "starts of each app, in turn (0 with -warm: only the warm-up starts)")
	settle := flag.Duration("settle", 8*time.Second, "how long after the first paint the memory is read")
	colours := flag.Int("colours", 200, "a frame with more distinct colours than this is painted")
	flag.IntVar(&pictures, "pictures", 0, "a frame with more distinct colours than this shows the tiles' pictures (0: not measured)")
	timeout := flag.Duration("timeout", 60*time.Second, "give up on a start that paints nothing for this long")
	title := flag.String("title", "", "a line printed above the table")
	warm := flag.Bool("warm", false, "start each app that has a data folder once on the folder itself, unmeasured, so what it keeps there (its tiles) is there for the measured starts, as for a returning user")
	flag.StringVar(&fbFile, "fb", "", "Xvfb's frame buffer file (Xvfb -fbdir DIR: DIR/Xvfb_screen0)")
	flag.StringVar(&shots, "shots", "", "keep each app's first painted frame here, as NAME-RUN.xwd (convert xwd:F.xwd F.png)")
	flag.StringVar(&keep, "keep", "", "keep the copy of its data folder each start ran on here, as NAME-RUN, to look at what it did")
	flag.Parse()
	var apps []app
	for _, arg := range flag.Args() {
		name, rest, ok := strings.Cut(arg, "=")
		if !ok {
			fmt.Fprintln(os.Stderr, "usage: windowbench [flags] NAME=BINARY[:DATADIR] ...")
			os.Exit(2)
		}
		bin, data, _ := strings.Cut(rest, ":")
		apps = append(apps, app{name: name, bin: bin, data: data})
	}
	if len(apps) == 0 || fbFile == "" {
		fmt.Fprintln(os.Stderr, "usage: windowbench [flags] NAME=BINARY[:DATADIR] ...")
		os.Exit(2)
	}
	ctx := context.Background()
	if *warm {
		for _, a := range apps {
			if a.data == "" {
				continue
			}
			a.inPlace = true
			s, err := measure(ctx, a, 0, *settle, *colours, *timeout)
			if err != nil {
				fmt.Fprintf(os.Stderr, "windowbench: %s, warm-up start: %v\n", a.name, err)
				os.Exit(1)
			}
			fmt.Printf("  warm-up %-8s paint %5d ms  settled %5d ms (not counted)\n", a.name, s.paint.Milliseconds(), s.settled.Milliseconds())
		}
	}
	if *runs == 0 {
		return // -runs 0 -warm: only the warm-up starts, to fill the folders
	}
	got := make([][]start, len(apps))
	for run := 1; run <= *runs; run++ {
		for i, a := range apps {
			s, err := measure(ctx, a, run, *settle, *colours, *timeout)
			if err != nil {
				fmt.Fprintf(os.Stderr, "windowbench: %s, start %d: %v\n", a.name, run, err)
				os.Exit(1)
			}
			fmt.Printf("  start %d %-8s paint %5d ms  pictures %5s  settled %5d ms  PSS %4d MB  RSS %4d MB  (%d processes)\n",
				run, a.name, s.paint.Milliseconds(), ms(s.pictures), s.settled.Milliseconds(), s.pss>>20, s.rss>>20, s.procs)
			got[i] = append(got[i], s)
		}
	}
	if *title != "" {
		fmt.Println(*title)
	}
	fmt.Printf("medians of %d alternating starts, memory %s after the first paint; load average %s\n", *runs, *settle, benchkit.LoadAverage())
	fmt.Printf("  %-8s %10s %11s %10s %8s %8s\n", "app", "paint ms", "pictures ms", "settled ms", "PSS MB", "RSS MB")
	med := make([]start, len(apps))
	for i, a := range apps {
		var p, st []time.Duration
		var pss, rss []int64
		for _, s := range got[i] {
			p, st, pss, rss = append(p, s.paint), append(st, s.settled), append(pss, s.pss), append(rss, s.rss)
		}
		med[i] = start{paint: benchkit.Median(p), pictures: picturesMedian(got[i]), settled: benchkit.Median(st), pss: benchkit.Median(pss), rss: benchkit.Median(rss)}
		fmt.Printf("  %-8s %10d %11s %10d %8d %8d\n", a.name, med[i].paint.Milliseconds(), ms(med[i].pictures), med[i].settled.Milliseconds(), med[i].pss>>20, med[i].rss>>20)
	}
	for i := 1; i < len(apps); i++ {
		fmt.Printf("  %s / %s: paint %.2fx, PSS %.2fx, RSS %.2fx\n", apps[0].name, apps[i].name,
			ratio(float64(med[0].paint), float64(med[i].paint)), ratio(float64(med[0].pss), float64(med[i].pss)), ratio(float64(med[0].rss), float64(med[i].rss)))
	}
}

// picturesMedian is the median time the pictures showed, or 0 unless
// every start showed them: a median over the starts that did would hide
// the ones that never did.
func picturesMedian(starts []start) time.Duration {
	var pic []time.Duration
	for _, s := range starts {
		if s.pictures == 0 {
			return 0
		}
		pic = append(pic, s.pictures)
	}
	if len(pic) == 0 {
		return 0
	}
	return benchkit.Median(pic)
}

// ms writes a time in milliseconds, or "-" for one never reached.
func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return strconv.FormatInt(d.Milliseconds(), 10)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// measure starts a once and stops it when its memory has been read.
func measure(ctx context.Context, a app, run int, settle time.Duration, colours int, timeout time.Duration) (start, error) {
	var s start
	// The screen must be blank before the start, or the last app's window
	// would count as this one's paint.
	if err := waitBlank(ctx, colours, 10*time.Second); err != nil {
		return s, err
	}
	cmd := exec.Command(a.bin)
	cmd.Env = os.Environ()
	if a.data != "" && a.inPlace {
		cmd.Env = append(cmd.Env, "SPARK_DATA="+a.data)
	} else if a.data != "" {
		dir, err := os.MkdirTemp("", "windowbench-data-")
		if err != nil {
			return s, err
		}
		defer os.RemoveAll(dir)
		data := filepath.Join(dir, "data")
		if keep != "" {
			data = filepath.Join(keep, fmt.Sprintf("%s-%d", a.name, run))
		}
		if out, err := exec.Command("cp", "-a", a.data, data).CombinedOutput(); err != nil {
			return s, fmt.Errorf("copy %s: %v: %s", a.data, err, out)
		}
		cmd.Env = append(cmd.Env, "SPARK_DATA="+data)
	}
	var logBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logBuf, &logBuf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return s, fmt.Errorf("start %s: %w", a.bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer stop(cmd, exited)

	var last uint64
	for {
		f, err := grab(ctx)
		if err != nil {
			return s, err
		}
		now := time.Since(began)
		if s.paint == 0 && f.colours > colours {
			s.paint, s.settled, last = now, now, f.sum
			if shots != "" {
				if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%s-%d.xwd", a.name, run)), f.raw, 0o644); err != nil {
					return s, err
				}
			}
		} else if s.paint != 0 && f.sum != last {
			s.settled, last = now, f.sum
		}
		if pictures > 0 && s.pictures == 0 && f.colours > pictures {
			s.pictures = now
		}
		if s.paint == 0 && now > timeout {
			return s, fmt.Errorf("nothing painted within %s; its output:\n%s", timeout, logBuf.String())
		}
		if s.paint != 0 && now > s.paint+settle {
			break
		}
		select {
		case <-exited:
			return s, fmt.Errorf("it exited (%v); its output:\n%s", waitErr, logBuf.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	tree := benchkit.Descendants(cmd.Process.Pid)
	s.procs = len(tree)
	for _, pid := range tree {
		pss, rss, err := benchkit.Rollup(pid)
		if err != nil {
			continue // a helper that ended meanwhile
		}
		s.pss += pss
		s.rss += rss
	}
	return s, nil
}

// stop ends the app with SIGTERM, as a logout would, then its whole
// process group if anything is left.
func stop(cmd *exec.Cmd, exited <-chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func waitBlank(ctx context.Context, colours int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		f, err := grab(ctx)
		if err != nil {
			return err
		}
		if f.colours <= colours {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the screen is not blank before the start")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// frame is what one picture of the screen tells.
type frame struct {
	colours int
	sum     uint64
	raw     []byte // the XWD image
}

var seen = make([]uint64, 1<<24/64) // a bit per 24-bit colour, reused

// fbFile is Xvfb's frame buffer, an XWD image; shots, if set, is where
// the first painted frames are kept.
var fbFile, shots, keep string

// pictures is -pictures: the colours of a frame that shows the pictures.
var pictures int

// grab reads the screen from Xvfb's frame buffer and counts its colours.
func grab(ctx context.Context) (frame, error) {
	b, err := os.ReadFile(fbFile)
	if err != nil {
		return frame{}, fmt.Errorf("read the screen: %w", err)
	}
	return countXWD(b)
}

// countXWD reads an XWD image of a TrueColor screen of 32 bits per pixel
// (Xvfb's at depth 24): its header is big-endian, its pixels in the
// header's byte order.
func countXWD(b []byte) (frame, error) {
	if len(b) < 100 {
		return frame{}, errors.New("xwd: short header")
	}
	field := func(i int) uint32 { return binary.BigEndian.Uint32(b[i*4:]) }
	headerSize, byteOrder, bpp, bpl, height, ncolours := field(0), field(7), field(11), field(12), field(5), field(19)
	if bpp != 32 {
		return frame{}, fmt.Errorf("xwd: %d bits per pixel, want 32", bpp)
	}
	off := int(headerSize) + int(ncolours)*12
	end := off + int(bpl)*int(height)
	if end > len(b) {
		return frame{}, errors.New("xwd: short image")
	}
	px := b[off:end]
	clear(seen)
	h := fnv.New64a()
	_, _ = h.Write(px)
	n := 0
	for i := 0; i+4 <= len(px); i += 4 {
		var v uint32
		if byteOrder == 0 { // LSBFirst
			v = binary.LittleEndian.Uint32(px[i:])
		} else {
			v = binary.BigEndian.Uint32(px[i:])
		}
		v &= 0xffffff
		if seen[v>>6]&(1<<(v&63)) == 0 {
			seen[v>>6] |= 1 << (v & 63)
			n++
		}
	}
	return frame{colours: n, sum: h.Sum64(), raw: b}, nil
}
