package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/racebuild"
	"github.com/sparkfamily/spark/internal/versitygw"
	"github.com/sparkfamily/spark/outbox"
)

// TestServeBackup_SIGKILL is the test of shipping under crashes:
// moments captured through the outbox (a tenth of them photos with a
// 1 MB original) while serve --backup-to ships to versitygw, the engine
// SIGKILLed 5 times at random points. After each kill every op logged at
// least 10 s before it is in the copy; over the whole run no object is
// stored twice, and a body is sent again only when the kill cut its
// first sending short; a restore of the copy is the log, fsck clean.
//
// -short, and the race detector, run a fifth of the captures with the same
// kills: under the detector every process of the run is five to ten times
// slower (the whole size took 4.5 of the race step's 9 minutes), so
// scripts/test.sh runs the whole size in a step of its own, without it.
func TestServeBackup_SIGKILL(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("versitygw runs beside the Linux and macOS tests, not under Windows")
	}
	// The captures are spread over spread, and the kills fall among them.
	moments, photos, spread := 2000, 300, 60*time.Second
	if testing.Short() || racebuild.Enabled {
		moments, photos, spread = 400, 60, 30*time.Second
	}
	srv := versitygw.Start(t)
	srv.Bucket(t, "family")
	srv.Env(t)
	puts := newPutCounter(t, srv.Endpoint)

	dir := t.TempDir()
	// An admin token, as the app's own engine gives the app: a device
	// token's readings are held to one every 2 s after a burst of 30.
	token, _, code := spark(t, "token", "add", "dad", "--scope", "admin", "--data", dir)
	if code != 0 {
		t.Fatal("token add failed")
	}
	token = strings.TrimSpace(token)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	ob, err := outbox.Open(ctx, filepath.Join(t.TempDir(), "outbox"), outbox.Options{BackoffBase: 100 * time.Millisecond, BackoffCap: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	go ob.Run(ctx)

	// Dad's moments go into the outbox while the engine comes and goes.
	captured := make(chan error, 1)
	go func() { captured <- captureMoments(ctx, ob, t.TempDir(), moments, photos, spread) }()

	rnd := rand.New(rand.NewPCG(7, 7))
	args := []string{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--backup-to", "s3://family/spark", "--backup-endpoint", puts.URL}
	for kill := range 5 {
		e := startServing(t, args)
		ob.SetTarget(outbox.Target{URL: e.url, Token: token})
		// Five kills within the spread, each after at least 2 s of serving.
		time.Sleep(2*time.Second + time.Duration(rnd.Int64N(int64(spread/5-2*time.Second))))
		at := time.Now()
		if err := e.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		e.cmd.Wait()
		due, last := dueBy(t, dir, at.Add(-10*time.Second))
		shipped := shippedThrough(t, srv)
		t.Logf("kill %d at %s: the log ends at seq %d, the copy at %d; ops logged 10 s before the kill end at %d",
			kill+1, at.Format("15:04:05.000"), last, shipped, due)
		if shipped < due {
			t.Errorf("kill %d: the copy ends at seq %d, but seq %d was logged at least 10 s before the kill", kill+1, shipped, due)
		}
	}
	// The last start: everything arrives, and the copy catches up.
	e := startServing(t, args)
	ob.SetTarget(outbox.Target{URL: e.url, Token: token})
	if err := <-captured; err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(4 * time.Minute)
	for {
		st, err := ob.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c, wc := st.Counts[outbox.KindPhoto], outbox.Counts{}
		for k, n := range st.Counts {
			if k != outbox.KindPhoto {
				wc.Pending, wc.Parked, wc.Done = wc.Pending+n.Pending, wc.Parked+n.Parked, wc.Done+n.Done
			}
		}
		if c.Done == photos && wc.Done == moments-photos {
			break
		}
		if c.Parked+wc.Parked > 0 {
			ws, _ := ob.UnsentWrites(ctx)
			if len(ws) > 0 {
				t.Fatalf("the outbox parked %d: first %s %s: %s", c.Parked+wc.Parked, ws[0].Kind, ws[0].LastCode, ws[0].LastError)
			}
			t.Fatalf("the outbox parked photos: %+v", c)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbox did not drain: photos %+v, notes %+v", c, wc)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var h api.Health
	for {
		resp, err := http.Get(e.url + "/v1/health")
		if err != nil {
			t.Fatal(err)
		}
		decodeJSON(t, resp, &h)
		if h.Backup != nil && h.Backup.State == api.BackupCurrent && h.Backup.ShippedSeq == h.Seq {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the copy did not catch up: %+v", h.Backup)
		}
		time.Sleep(200 * time.Millisecond)
	}
	e.cmd.Process.Signal(os.Interrupt)
	e.cmd.Wait()

	// No object stored twice; a body sent again only after a kill cut
	// its first sending.
	stored, again := puts.report()
	for name, n := range stored {
		if n > 1 {
			t.Errorf("%s was stored %d times", name, n)
		}
	}
	if len(again) > 5 {
		t.Errorf("%d bodies were sent more than once (%v), but only 5 kills could cut a sending short", len(again), again)
	}
	t.Logf("%d objects stored once each; sent again after a kill: %v", len(stored), again)

	// The copy restores to the log, fsck clean.
	into := filepath.Join(t.TempDir(), "restored")
	stdout, stderr, code := spark(t, "restore", "--from", "s3://family/spark", "--backup-endpoint", srv.Endpoint, "--data", into, "--key", filepath.Join(dir, "backup.key"))
	if code != 0 {
		t.Fatalf("restore: exit %d\n%s\n%s", code, stdout, stderr)
	}
	want, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(into, engine.LogFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the restored log (%d bytes) is not the engine's (%d bytes): %v", len(got), len(want), err)
	}
}

// served is a serve process and its address.
type served struct {
	cmd *exec.Cmd
	url string
}

// startServing starts serve with args and waits until it listens.
func startServing(t *testing.T, args []string) served {
	t.Helper()
	// command's 2 minutes are too short for the last run, which drains
	// everything; the test's own deadline bounds it.
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "SPARK_BRAIN_URL=", "SPARK_BRAIN_MODEL=", "SPARK_BRAIN_KEY=")
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	var log bytes.Buffer
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := serveAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- "http://" + m[1]
			}
		}
	}()
	select {
	case u := <-addr:
		return served{cmd: cmd, url: u}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("serve did not say where it listens:\n%s", log.String())
	}
	return served{}
}

// captureMoments puts n moments in the outbox, photos of them photos with
// a 1 MB original, in a random order, spread over spread.
func captureMoments(ctx context.Context, ob *outbox.Outbox, dir string, n, photos int, spread time.Duration) error {
	start := time.Now()
	rnd := rand.New(rand.NewPCG(11, 11))
	isPhoto := make([]bool, n)
	for _, i := range rnd.Perm(n)[:photos] {
		isPhoto[i] = true
	}
	for i := range n {
		// Dad, and the family, over the spread: not all at once.
		time.Sleep(time.Until(start.Add(spread * time.Duration(i) / time.Duration(n))))
		if !isPhoto[i] {
			if _, err := ob.AddWrite(ctx, outbox.NewNote(ulid.Make().String(), fmt.Sprintf("note %d", i))); err != nil {
				return err
			}
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("photo-%04d.jpg", i))
		if err := os.WriteFile(p, noisyJPEG(i), 0o600); err != nil {
			return err
		}
		res := ob.Capture(ctx, []string{p}, outbox.CaptureOptions{})
		if len(res) != 1 || res[0].Err != nil {
			return fmt.Errorf("capture %s: %+v", p, res)
		}
	}
	return nil
}

// noisyJPEG is a JPEG of about 1 MB, different for each seed.
func noisyJPEG(seed int) []byte {
	rnd := rand.New(rand.NewPCG(uint64(seed), 3))
	img := image.NewRGBA(image.Rect(0, 0, 640, 600))
	for y := range 600 {
		for x := range 640 {
			img.Set(x, y, color.RGBA{uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), 255})
		}
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	return b.Bytes()
}

// dueBy reads the engine's log: the last seq logged at or before t, and
// the log's last seq.
func dueBy(t *testing.T, dir string, at time.Time) (due, last uint64) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, engine.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := oplog.NewReader(f, engine.LogFile, 0)
	for {
		rec, more, _, err := rd.Next()
		if err != nil {
			return due, last // the end, perhaps a record the kill cut
		}
		if !more {
			last = rec.Seq
			if !rec.At.After(at) {
				due = rec.Seq
			}
		}
	}
}

// shippedThrough is the last seq in the copy, from its segments' names.
func shippedThrough(t *testing.T, srv *versitygw.Server) uint64 {
	t.Helper()
	var last uint64
	pages := s3.NewListObjectsV2Paginator(srv.Client(), &s3.ListObjectsV2Input{Bucket: aws.String("family"), Prefix: aws.String("spark/log/")})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			var first, l uint64
			if _, err := fmt.Sscanf(strings.TrimPrefix(*o.Key, "spark/log/"), "%020d-%020d.seg", &first, &l); err == nil && l > last {
				last = l
			}
		}
	}
	return last
}

// putCounter is a reverse proxy in front of the S3 server that counts,
// for each object, the PUTs sent and the PUTs the store answered 200.
type putCounter struct {
	URL  string
	mu   sync.Mutex
	sent map[string]int
	ok   map[string]int
}

func newPutCounter(t *testing.T, endpoint string) *putCounter {
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	pc := &putCounter{sent: map[string]int{}, ok: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			rp.ServeHTTP(w, r)
			return
		}
		pc.mu.Lock()
		pc.sent[r.URL.Path]++
		pc.mu.Unlock()
		rec := &statusWriter{ResponseWriter: w}
		rp.ServeHTTP(rec, r)
		if rec.status == http.StatusOK {
			pc.mu.Lock()
			pc.ok[r.URL.Path]++
			pc.mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	pc.URL = srv.URL
	return pc
}

// report gives the stores per object and the objects sent more than once.
func (pc *putCounter) report() (stored map[string]int, again []string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for name, n := range pc.sent {
		if n > 1 {
			again = append(again, fmt.Sprintf("%s ×%d", name, n))
		}
	}
	return pc.ok, again
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

var _ io.Writer = (*statusWriter)(nil)
