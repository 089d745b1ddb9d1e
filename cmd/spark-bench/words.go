package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/internal/wordsphotos"
	"github.com/sparkfamily/spark/outbox/photo"
)

var (
	wordsOut  = flag.String("out", "", "folder words-photos writes its photos into")
	wordsText = flag.Bool("words-text", false, "words: print what each reader read of each photo")
	tessVars  = flag.String("tess-c", "", "words: settings for the tesseract CLI, KEY=VALUE,... (each as -c KEY=VALUE), e.g. thresholding_method=2")
)

// Issue 37's goal: printed documents and labels are read with at most 5%
// character errors. The photos of those kinds are named after them
// (letter-1.jpg, label-2.jpg); a sign's figure is printed, whatever it is.
const goalCER = 0.05

var goalKinds = []string{"letter", "label"}

func init() {
	register("words", bench{
		help: "reader of words in WebKitGTK vs the tesseract CLI: CER, words found, ms and peak PSS per photo (--photos DIR, or made)",
		run:  benchWords,
	})
	register("words-photos", bench{
		help: "not a benchmark: writes the photos words reads, with their true text, into --out DIR",
		run:  writeWordsPhotos,
		tool: true,
	})
}

func writeWordsPhotos(ctx context.Context, out io.Writer) error {
	if *wordsOut == "" {
		return errors.New("say where with --out DIR")
	}
	ps, err := wordsphotos.Generate(*wordsOut)
	if err != nil {
		return err
	}
	n := 0
	for _, p := range ps {
		n += len(p.Files)
	}
	fmt.Fprintf(out, "words-photos: %d photos of %d scenes, each with NAME.txt, in %s\n", n, len(ps), *wordsOut)
	return nil
}

// flagGiven says whether the flag name was set on the command line.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// wordsPhoto is one photo the bench reads: the file, its true text, and
// its small copy, which is what the window reads.
type wordsPhoto struct {
	name, kind, file, truth string
	// again: a photo of this NAME came before (letter-1.png after
	// letter-1.jpg, the same picture): the rows by kind count each true
	// text once.
	again bool
	copy  string
	w, h  int
}

// listWordsPhotos finds every NAME.jpg, .jpeg, .png or .heic in dir that
// has NAME.txt beside it, by name.
func listWordsPhotos(dir string) ([]wordsPhoto, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ps []wordsPhoto
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		switch ext {
		case ".jpg", ".jpeg", ".png", ".heic":
		default:
			continue
		}
		base := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		truth, err := os.ReadFile(filepath.Join(dir, base+".txt"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		kind, _, _ := strings.Cut(base, "-")
		ps = append(ps, wordsPhoto{name: e.Name(), kind: strings.ToLower(kind), file: filepath.Join(dir, e.Name()), truth: string(truth)})
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("no NAME.jpg, .png or .heic with a NAME.txt beside it in %s", dir)
	}
	// Letters, labels and signs first, in that order; then by NAME, a
	// camera's JPEG before a HEIC and a PNG.
	rank := func(kind string) int {
		if i := slices.Index(wordsphotos.Kinds, kind); i >= 0 {
			return i
		}
		return len(wordsphotos.Kinds)
	}
	exts := []string{".jpg", ".jpeg", ".heic", ".png"}
	base := func(p wordsPhoto) string { return strings.TrimSuffix(p.name, filepath.Ext(p.name)) }
	slices.SortStableFunc(ps, func(a, b wordsPhoto) int {
		if d := rank(a.kind) - rank(b.kind); d != 0 {
			return d
		}
		if d := strings.Compare(base(a), base(b)); d != 0 {
			return d
		}
		return slices.Index(exts, strings.ToLower(filepath.Ext(a.name))) - slices.Index(exts, strings.ToLower(filepath.Ext(b.name)))
	})
	for i := 1; i < len(ps); i++ {
		ps[i].again = base(ps[i]) == base(ps[i-1])
	}
	return ps, nil
}

// repoRoot is the folder of Spark's go.mod, at or above the working
// directory: the bench needs frontend/dist and e2e/ocr-webkit.c.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/sparkfamily/spark\n")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("run it inside Spark's repository: it needs frontend/dist and e2e/ocr-webkit.c")
		}
		dir = up
	}
}

// readerEntry is the built reader's page entry, assets/ocr-check-HASH.js,
// with the reader's files beside it, or what to do.
func readerEntry(dist string) (string, error) {
	build := "build the window first: cd frontend && npm run build"
	entries, _ := os.ReadDir(filepath.Join(dist, "assets"))
	entry := ""
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "ocr-check-") && strings.HasSuffix(e.Name(), ".js") {
			entry = e.Name()
		}
	}
	if entry == "" {
		return "", fmt.Errorf("%s has no reader of words (assets/ocr-check-*.js): %s", dist, build)
	}
	for _, f := range []string{"ocr/worker.min.js", "ocr/core/tesseract-core-simd-lstm.wasm.js", "ocr/lang/eng.traineddata.gz"} {
		if _, err := os.Stat(filepath.Join(dist, f)); err != nil {
			return "", fmt.Errorf("%s has no %s: %s", dist, f, build)
		}
	}
	return entry, nil
}

// buildWebView compiles e2e/ocr-webkit.c, the web view of the window as
// Wails v2 sets it up on Linux, into dir.
func buildWebView(ctx context.Context, root, dir string) (bin, version string, err error) {
	for _, tool := range []string{"gcc", "pkg-config", "xvfb-run"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", "", fmt.Errorf("%s is missing: the bench runs the window's web view, WebKitGTK, under Xvfb (scripts/setup.sh installs it)", tool)
		}
	}
	flags, err := exec.CommandContext(ctx, "pkg-config", "--cflags", "--libs", "webkit2gtk-4.0").Output()
	if err != nil {
		return "", "", fmt.Errorf("no WebKitGTK 4.0 development files (libwebkit2gtk-4.0-dev): %w", err)
	}
	v, _ := exec.CommandContext(ctx, "pkg-config", "--modversion", "webkit2gtk-4.0").Output()
	bin = filepath.Join(dir, "ocr-webkit")
	args := append([]string{"-O1", "-o", bin, filepath.Join(root, "e2e", "ocr-webkit.c")}, strings.Fields(string(flags))...)
	if out, err := exec.CommandContext(ctx, "gcc", args...).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("gcc e2e/ocr-webkit.c: %v: %s", err, out)
	}
	return bin, strings.TrimSpace(string(v)), nil
}

// webResult is what the bench's page says in its title when it is done.
type webResult struct {
	Simd  bool    `json:"simd"`
	Start float64 `json:"start"`
	Error string  `json:"error"`
	// Photos are from the page's mark/result-I/JSON addresses.
	Photos []webPhoto `json:"-"`
}

// webPhoto is one photo's reading in the page.
type webPhoto struct {
	Text  string    `json:"text"`
	Times []float64 `json:"times"`
	Error string    `json:"error"`
}

// wordsPage is the page the web view loads: the reader of words as built
// (entry), reading each photo's small copy (wails://wails/photos/I.jpg)
// runs times after one read that starts the worker. It asks for
// mark/start-I and mark/done-I around each photo's reads (not found; the
// web view's log of addresses tells the bench where the page is), then
// for mark/result-I/JSON with its text and times: a title, the way the
// page says it is done, is cut short past a thousand characters or so.
func wordsPage(entry string, n, runs int) string {
	return fmt.Sprintf(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>spark-bench words</title>
<script>addEventListener('error', (e) => (document.title = JSON.stringify({ error: String(e.message) })));</script>
<script type="module">import '/assets/%s';
const n = %d, runs = %d;
const mark = (m) => fetch('mark/' + m).catch(() => undefined);
const out = {};
try {
  out.simd = window.sparkOcr.hasSimd();
  const reader = window.sparkOcr.createReader({ idleMs: 3600000 });
  await mark('ready');
  await new Promise((r) => setTimeout(r, 1000));
  await mark('start');
  let t = performance.now();
  await reader.read('photos/0.jpg');
  out.start = performance.now() - t;
  for (let i = 0; i < n; i++) {
    await mark('start-' + i);
    const p = { times: [] };
    try {
      for (let r = 0; r < runs; r++) {
        t = performance.now();
        p.text = (await reader.read('photos/' + i + '.jpg')).text;
        p.times.push(performance.now() - t);
      }
    } catch (e) {
      p.error = String(e?.message ?? e);
    }
    await mark('done-' + i);
    await mark('result-' + i + '/' + encodeURIComponent(JSON.stringify(p)));
  }
  await reader.stop();
} catch (e) {
  out.error = String(e?.message ?? e);
}
document.title = JSON.stringify(out);</script></head><body></body></html>`, entry, n, runs)
}

// webRun is what the web view's run measured besides the page's figures:
// the web process's peak PSS per phase ("ready": the page loaded and no
// read yet; "start": the first read, with the worker's start;
// "I": photo I's reads) and its CPU time per photo.
type webRun struct {
	res     webResult
	peakKB  map[string]int
	allKB   int
	cpu     map[int]time.Duration
	version string
}

// readInWebView reads ps's small copies in the window's web view.
func readInWebView(ctx context.Context, root, dist, entry, tmp string, ps []wordsPhoto, runs int) (webRun, error) {
	var wr webRun
	bin, version, err := buildWebView(ctx, root, tmp)
	if err != nil {
		return wr, err
	}
	wr.version = version
	page := filepath.Join(tmp, "page.html")
	if err := os.WriteFile(page, []byte(wordsPage(entry, len(ps), runs)), 0o644); err != nil {
		return wr, err
	}
	cmd := exec.CommandContext(ctx, "xvfb-run", "-a", bin, dist, page, filepath.Join(tmp, "photos"))
	// A read seldom takes more than 10 s here; the page is given far more.
	cmd.Env = append(os.Environ(), fmt.Sprintf("OCR_WEBKIT_SECONDS=%d", 120+30*len(ps)*(runs+1)))
	ownGroup(cmd)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return wr, err
	}
	if err := cmd.Start(); err != nil {
		return wr, err
	}
	defer killGroup(cmd) // Xvfb, should xvfb-run leave it

	var mu sync.Mutex
	webPIDs := func() []int {
		return benchkit.Named(benchkit.Descendants(cmd.Process.Pid)[1:], "WebKitWebProcess")
	}
	sampler := samplePSS(100*time.Millisecond, webPIDs)
	webCPU := func() time.Duration {
		var sum time.Duration
		for _, pid := range webPIDs() {
			_, c, _ := benchkit.ProcStat(pid)
			sum += c
		}
		return sum
	}
	wr.cpu = map[int]time.Duration{}
	results := map[int]webPhoto{}
	var tail []string
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		started := map[int]time.Duration{}
		for sc.Scan() {
			l := sc.Text()
			m, ok := strings.CutPrefix(l, "wk: wails://wails/mark/")
			if !ok {
				if !strings.HasPrefix(l, "wk: ") {
					mu.Lock()
					tail = append(tail, l)
					if len(tail) > 20 {
						tail = tail[1:]
					}
					mu.Unlock()
				}
				continue
			}
			switch {
			case strings.HasPrefix(m, "result-"):
				idx, enc, _ := strings.Cut(strings.TrimPrefix(m, "result-"), "/")
				i, _ := strconv.Atoi(idx)
				var p webPhoto
				js, err := url.PathUnescape(enc)
				if err == nil {
					err = json.Unmarshal([]byte(js), &p)
				}
				if err != nil {
					p.Error = fmt.Sprintf("its result could not be read: %v", err)
				}
				mu.Lock()
				results[i] = p
				mu.Unlock()
			case m == "ready" || m == "start":
				sampler.setPhase(m)
			case strings.HasPrefix(m, "start-"):
				i, _ := strconv.Atoi(strings.TrimPrefix(m, "start-"))
				sampler.setPhase(strconv.Itoa(i))
				started[i] = webCPU()
			case strings.HasPrefix(m, "done-"):
				i, _ := strconv.Atoi(strings.TrimPrefix(m, "done-"))
				mu.Lock()
				wr.cpu[i] = webCPU() - started[i]
				mu.Unlock()
				sampler.setPhase("after")
			}
		}
	}()
	waitErr := cmd.Wait()
	<-lines
	wr.peakKB, wr.allKB = sampler.finish()
	mu.Lock()
	defer mu.Unlock()
	last := ""
	if ls := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(ls) > 0 {
		last = ls[len(ls)-1]
	}
	if waitErr != nil || !strings.HasPrefix(last, "{") {
		return wr, fmt.Errorf("the web view (xvfb-run ocr-webkit): %v, printed %q: %s", waitErr, last, strings.Join(tail, "\n"))
	}
	if err := json.Unmarshal([]byte(last), &wr.res); err != nil {
		return wr, fmt.Errorf("the page's result %q: %w", last, err)
	}
	if wr.res.Error != "" {
		return wr, fmt.Errorf("the page: %s", wr.res.Error)
	}
	for i := range ps {
		p, ok := results[i]
		if !ok {
			return wr, fmt.Errorf("the page gave no result for %s", ps[i].name)
		}
		wr.res.Photos = append(wr.res.Photos, p)
	}
	return wr, nil
}

// tessRun is the tesseract CLI's figures for one photo: its text, the
// median wall time and the mean CPU time of its runs, and the peak PSS.
type tessRun struct {
	text   string
	wall   time.Duration
	cpu    time.Duration
	peakKB int
}

// tessArgs is how the CLI is run: the LSTM engine (as the window's reader,
// OEM.LSTM_ONLY), English, its default page layout and settings but those
// of --tess-c; the text goes to stdout.
func tessArgs() []string {
	args := []string{"--oem", "1", "-l", "eng"}
	for kv := range strings.SplitSeq(*tessVars, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			args = append(args, "-c", kv)
		}
	}
	return args
}

// tesseract runs the CLI on file n times, on one thread (OMP_THREAD_LIMIT=1:
// the window's reader has one too).
func tesseract(ctx context.Context, file string, n int) (tessRun, error) {
	var r tessRun
	var walls []time.Duration
	var cpu time.Duration
	for range n {
		cmd := exec.CommandContext(ctx, "tesseract", append([]string{file, "stdout"}, tessArgs()...)...)
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		t := time.Now()
		if err := cmd.Start(); err != nil {
			return r, err
		}
		pid := cmd.Process.Pid
		s := samplePSS(20*time.Millisecond, func() []int { return []int{pid} })
		err := cmd.Wait()
		walls = append(walls, time.Since(t))
		_, peak := s.finish()
		if err != nil {
			return r, fmt.Errorf("tesseract %s: %v: %s", filepath.Base(file), err, strings.TrimSpace(errb.String()))
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		r.text = out.String()
		r.peakKB = max(r.peakKB, peak)
	}
	r.wall, r.cpu = benchkit.Median(walls), cpu/time.Duration(n)
	return r, nil
}

// writeSmallCopies makes each photo's small copy, as the outbox does
// before it is sent (upright, long edge 1,600 px, JPEG q85), as
// dir/I.jpg: the window reads that copy, not the original.
func writeSmallCopies(ctx context.Context, ps []wordsPhoto, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range ps {
		f, err := os.Create(filepath.Join(dir, strconv.Itoa(i)+".jpg"))
		if err != nil {
			return err
		}
		res, err := photo.SmallCopy(ctx, ps[i].file, f, photo.Options{})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("small copy of %s: %w", ps[i].name, err)
		}
		ps[i].copy, ps[i].w, ps[i].h = f.Name(), res.Width, res.Height
	}
	return nil
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func mb(kb int) string {
	if kb == 0 {
		return "-"
	}
	return strconv.Itoa((kb + 512) / 1024)
}

func benchWords(ctx context.Context, out io.Writer) error {
	if runtime.GOOS != "linux" {
		return errors.New("it runs the window's web view as on Linux (WebKitGTK under Xvfb) and reads /proc: Linux only")
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	dist := filepath.Join(root, "frontend", "dist")
	entry, err := readerEntry(dist)
	if err != nil {
		return err
	}
	n := max(*runs, 1)
	tmp, err := os.MkdirTemp("", "spark-bench-words-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	dir, made := *photosDir, ""
	if !flagGiven("photos") {
		// The photos of letters, labels and signs made for the bench.
		dir = filepath.Join(tmp, "made")
		if _, err := wordsphotos.Generate(dir); err != nil {
			return fmt.Errorf("make the photos: %w", err)
		}
		made = " (made by words-photos: letters, labels and signs from the Go fonts, with their true text)"
	}
	ps, err := listWordsPhotos(dir)
	if err != nil {
		return err
	}
	if err := writeSmallCopies(ctx, ps, filepath.Join(tmp, "photos")); err != nil {
		return err
	}
	_, tessErr := exec.LookPath("tesseract")
	tessVersion := "absent"
	if tessErr == nil {
		v, _ := exec.CommandContext(ctx, "tesseract", "--version").CombinedOutput()
		tessVersion = strings.TrimSpace(strings.SplitN(string(v), "\n", 2)[0])
	}

	fmt.Fprintf(out, "reader of words: %d photos in %s%s, %d CPUs, %s\n", len(ps), dir, made, runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(out, "each photo's small copy is read (what the window reads: upright, long edge %d px, JPEG q%d), by both readers;\n", photo.DefaultMaxEdge, photo.DefaultQuality)
	fmt.Fprintf(out, "ours = Spark's reader of words as built (frontend/dist, tesseract.js, LSTM, eng) in WebKitGTK under Xvfb, served as Wails v2 does (e2e/ocr-webkit.c);\n")
	fmt.Fprintf(out, "tess = %s, `tesseract PHOTO stdout %s`, OMP_THREAD_LIMIT=1, in the same run after ours;\n", tessVersion, strings.Join(tessArgs(), " "))
	fmt.Fprintf(out, "CER = Levenshtein distance / true characters, both texts normalized: white space runs -> one space, none at the ends,\n")
	fmt.Fprintf(out, "  typographic quotes, dashes and ligatures -> ASCII; case and punctuation kept. found = true words read (case-blind,\n")
	fmt.Fprintf(out, "  end punctuation off, each as often as it is there); ms = median of %d reads, worker warm (ours) / whole CLI run (tess);\n", n)
	fmt.Fprintf(out, "cpu = CPU time per read of the web process (all threads) / of the CLI; PSS = peak of the web process while reading\n")
	fmt.Fprintf(out, "  the photo / of the CLI, sampled every 100 / 20 ms from /proc/PID/smaps_rollup\n")
	fmt.Fprintf(out, "load average (1, 5, 15 min) at the start: %s\n", benchkit.LoadAverage())

	wr, err := readInWebView(ctx, root, dist, entry, tmp, ps, n)
	if err != nil {
		return err
	}
	tess := make([]tessRun, len(ps))
	var tessStart tessRun
	if tessErr == nil {
		// The CLI's own start: loading its data, on a blank picture.
		blank := filepath.Join(tmp, "blank.png")
		if err := writeBlank(blank); err != nil {
			return err
		}
		if tessStart, err = tesseract(ctx, blank, n); err != nil {
			return err
		}
		for i, p := range ps {
			if tess[i], err = tesseract(ctx, p.copy, n); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(out, "load average after the reads: %s\n\n", benchkit.LoadAverage())

	type agg struct {
		photos      int
		ours, tess  wordsphotos.Score
		oursMs, tMs []time.Duration
		oursCER     []float64
		tessCER     []float64
	}
	kinds := map[string]*agg{}
	var kindOrder []string
	total := &agg{}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "photo\tpx\tchars\twords\tCER ours\tCER tess\tfound ours\tfound tess\tours ms\ttess ms\tours/tess\tours cpu ms\ttess cpu ms\tours PSS MB\ttess PSS MB\t")
	for i, p := range ps {
		r := wr.res.Photos[i]
		so := wordsphotos.Compare(p.truth, r.Text)
		ours := time.Duration(benchkit.Median(r.Times) * float64(time.Millisecond))
		a := kinds[p.kind]
		if a == nil {
			a = &agg{}
			kinds[p.kind] = a
			kindOrder = append(kindOrder, p.kind)
		}
		tessCER, tessFound, tessMs, ratio, tessCPU, tessPSS := "absent", "-", "-", "-", "-", "-"
		var st wordsphotos.Score
		if tessErr == nil {
			st = wordsphotos.Compare(p.truth, tess[i].text)
			tessCER, tessFound, tessMs, tessCPU, tessPSS = pct(st.CER()), fmt.Sprintf("%d/%d", st.Found, st.Words), ms(tess[i].wall), ms(tess[i].cpu), mb(tess[i].peakKB)
			if tess[i].wall > 0 {
				ratio = fmt.Sprintf("%.2fx", float64(ours)/float64(tess[i].wall))
			}
		}
		name := p.name
		if p.again {
			name += " *"
		}
		for _, g := range []*agg{a, total} {
			if p.again {
				break
			}
			g.photos++
			g.ours, g.tess = g.ours.Add(so), g.tess.Add(st)
			g.oursMs, g.tMs = append(g.oursMs, ours), append(g.tMs, tess[i].wall)
			g.oursCER, g.tessCER = append(g.oursCER, so.CER()), append(g.tessCER, st.CER())
		}
		oursCER := pct(so.CER())
		if r.Error != "" {
			oursCER = "failed"
		}
		fmt.Fprintf(tw, "%s\t%dx%d\t%d\t%d\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			name, p.w, p.h, so.Chars, so.Words, oursCER, tessCER, so.Found, so.Words, tessFound,
			ms(ours), tessMs, ratio, ms(wr.cpu[i]/time.Duration(n)), tessCPU, mb(wr.peakKB[strconv.Itoa(i)]), tessPSS)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, r := range wr.res.Photos {
		if r.Error != "" {
			fmt.Fprintf(out, "%s: ours failed: %s\n", ps[i].name, r.Error)
		}
		if *wordsText {
			fmt.Fprintf(out, "\n%s, ours: %q\n", ps[i].name, wordsphotos.Normalize(r.Text))
			if tessErr == nil {
				fmt.Fprintf(out, "%s, tess: %q\n", ps[i].name, wordsphotos.Normalize(tess[i].text))
			}
		}
	}

	fmt.Fprintf(out, "\n* the same picture as the photo above it, in another format: shown, not counted again below\n")
	fmt.Fprintf(out, "by kind (each true text once; CER over all its characters; ms and CER med = median per photo); goal: %s at most %s CER (issue 37):\n",
		strings.Join(goalKinds, " and "), pct(goalCER))
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tphotos\tCER ours\tCER tess\tgoal\tfound ours\tfound tess\tCER med ours\tCER med tess\tms med ours\tms med tess\t")
	row := func(name string, a *agg) {
		goal := "-"
		if slices.Contains(goalKinds, name) {
			goal = fmt.Sprintf("<=%s %s", pct(goalCER), passFail(a.ours.CER() <= goalCER))
		}
		tc, tf, tcm, tm := "absent", "-", "-", "-"
		if tessErr == nil {
			tc, tf, tcm, tm = pct(a.tess.CER()), pct(a.tess.FoundShare()), pct(benchkit.Median(a.tessCER)), ms(benchkit.Median(a.tMs))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, a.photos, pct(a.ours.CER()), tc, goal,
			pct(a.ours.FoundShare()), tf, pct(benchkit.Median(a.oursCER)), tcm, ms(benchkit.Median(a.oursMs)), tm)
	}
	for _, k := range kindOrder {
		row(k, kinds[k])
	}
	row("all", total)
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(out, "\nWebKitGTK %s (SIMD: %v): first read, the worker's start included: %s ms", wr.version, wr.res.Simd, ms(time.Duration(wr.res.Start*float64(time.Millisecond))))
	if tessErr == nil {
		fmt.Fprintf(out, "; tesseract's start (the CLI on a blank 64x64 picture): %s ms, %s MB", ms(tessStart.wall), mb(tessStart.peakKB))
	}
	fmt.Fprintln(out)
	tessPeak := 0
	for _, t := range tess {
		tessPeak = max(tessPeak, t.peakKB)
	}
	fmt.Fprintf(out, "web process PSS: %s MB with the page loaded before any read, %s MB at most during the first read, %s MB at most in all; tesseract CLI at most %s MB\n",
		mb(wr.peakKB["ready"]), mb(wr.peakKB["start"]), mb(wr.allKB), mb(tessPeak))
	if tessErr != nil {
		fmt.Fprintln(out, "tesseract: absent (install it with: apt-get install -y tesseract-ocr tesseract-ocr-eng); no peer figures")
	}
	fmt.Fprintf(out, "load average (1, 5, 15 min) at the end: %s\n", benchkit.LoadAverage())
	return nil
}

// writeBlank writes a white 64×64 PNG to f.
func writeBlank(f string) error {
	m := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range m.Pix {
		m.Pix[i] = 255
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		return err
	}
	return os.WriteFile(f, b.Bytes(), 0o644)
}
