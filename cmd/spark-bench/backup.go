package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/backup"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/host"
	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/internal/versitygw"
)

var (
	backupMoments = flag.Int("backup-moments", 2000, "moments in the backup benchmark's corpus")
	backupPhotos  = flag.Int("backup-photos", 300, "of them, photos with an original")
	backupKB      = flag.Int("backup-original-kb", 1000, "KB of each original")
	backupRounds  = flag.Int("backup-rounds", 3, "rounds of the backup benchmark; medians are quoted")
	backupBeside  = flag.Int("backup-captures", 60, "captures timed with and without a copy being shipped beside them")
	backupProfile = flag.String("backup-cpuprofile", "", "folder to write CPU profiles of each round's shipping and restore into (ship-N-0.pprof and ship-N-3.pprof, a round's two ships; restore-N-0.pprof and restore-N-3.pprof)")
)

// profiled runs f, writing a CPU profile of it to DIR/name.pprof when
// --backup-cpuprofile names a folder DIR.
func profiled(name string, f func() error) error {
	if *backupProfile == "" {
		return f()
	}
	if err := os.MkdirAll(*backupProfile, 0o755); err != nil {
		return err
	}
	pf, err := os.Create(filepath.Join(*backupProfile, name+".pprof"))
	if err != nil {
		return err
	}
	defer pf.Close()
	if err := pprof.StartCPUProfile(pf); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	return f()
}

// abba runs a, b, b, a, passing each its turn (0 to 3), and returns the
// time of a and of b, each the mean of its two. Whichever goes first
// meets memory the machine has not used yet (slow to touch in a virtual
// machine), and files made just after others were removed are slow to
// create (ext4 without a journal steps over every inode freed in the
// last minute); in this order each side pays that equally, so nothing
// is removed until the run ends.
func abba(a, b func(turn int) (time.Duration, error)) (time.Duration, time.Duration, error) {
	var took [2]time.Duration
	for turn := range 4 {
		side := (turn + 1) / 2 % 2 // 0, 1, 1, 0
		t, err := [2]func(int) (time.Duration, error){a, b}[side](turn)
		if err != nil {
			return 0, 0, err
		}
		took[side] += t / 2
	}
	return took[0], took[1], nil
}

func init() {
	register("backup", bench{
		help: "ship a corpus to a real S3 server (versitygw on loopback) and restore it, each beside its floor (the same objects PUT and GET by the same SDK, plus rebuild), and time captures with and without a copy shipping beside them; goals: shipping >= 80% of its floor, restore >= 70% of its floor and under 2 min",
		run:  benchBackup,
	})
}

// benchBackup makes a corpus once (--backup-moments, --backup-photos of
// them with an original of --backup-original-kb), then each round ships
// it into a new bucket of versitygw with backup.Shipper and PUTs the same
// objects into another with the SDK alone (the floor), restores the copy
// into an empty folder with backup.Restore and GETs every object of it
// plus engine.Rebuild (the floor), each pair in the order A, B, B, A,
// and quotes the medians side by side.
func benchBackup(ctx context.Context, out io.Writer) error {
	bin := versitygw.Bin()
	if bin == "" {
		return fmt.Errorf("the backup benchmark needs versitygw: run scripts/versitygw.sh (it builds it once from the Go module proxy) or set SPARK_VERSITYGW")
	}
	dir, cleanup, err := workDir("backup")
	if err != nil {
		return err
	}
	defer cleanup()
	src := filepath.Join(dir, "engine")
	t0 := time.Now()
	originals, err := backupCorpus(ctx, src)
	if err != nil {
		return err
	}
	var logBytes int64
	if fi, err := os.Stat(filepath.Join(src, engine.LogFile)); err == nil {
		logBytes = fi.Size()
	}
	fmt.Fprintf(out, "  corpus: %d moments, %d with an original of %d KB (%s), a log of %d bytes, made in %s\n",
		*backupMoments, *backupPhotos, *backupKB, originals, logBytes, time.Since(t0).Round(time.Millisecond))
	srv, err := versitygw.Run(bin, filepath.Join(dir, "s3"), versitygw.Options{})
	if err != nil {
		return err
	}
	defer srv.Stop()
	key, _, err := backup.LoadOrCreateKey(src)
	if err != nil {
		return err
	}
	c := srv.Client()
	opts := backup.Options{Endpoint: srv.Endpoint}
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": versitygw.Access, "AWS_SECRET_ACCESS_KEY": versitygw.Secret, "AWS_REGION": "us-east-1"} {
		os.Setenv(k, v)
	}
	var ship, shipFloor, rest, restFloor []float64
	var bytesUp int64
	var objects int
	for round := range *backupRounds {
		// Shipping and its floor each go into a bucket of their own. The
		// floor PUTs the objects the first ship stored, read from
		// versitygw's own folder, by the same SDK with the same checks
		// and no Spark: shipping's figure holds the encryption, the
		// floor's does not.
		var bucket string
		var tgt backup.Target
		shipTook, floorTook, err := abba(func(i int) (time.Duration, error) {
			b := fmt.Sprintf("ship-%d-%d", round, i)
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
				return 0, fmt.Errorf("make the bucket %s: %w", b, err)
			}
			t, err := backup.Open(ctx, "s3://"+b+"/family", opts)
			if err != nil {
				return 0, err
			}
			start := time.Now()
			var st backup.Stats
			err = profiled(fmt.Sprintf("ship-%d-%d", round+1, i), func() (err error) {
				st, err = (&backup.Shipper{Dir: src, Target: t, Key: key, Logger: slog.New(slog.DiscardHandler)}).Ship(ctx)
				return err
			})
			if err != nil {
				return 0, fmt.Errorf("ship: %w", err)
			}
			took := time.Since(start)
			bytesUp = st.LogBytes + st.MediaBytes
			if tgt == nil {
				bucket, tgt = b, t // the copy the floor PUTs and the restores read
			}
			return took, nil
		}, func(i int) (time.Duration, error) {
			b := fmt.Sprintf("floor-%d-%d", round, i)
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
				return 0, fmt.Errorf("make the bucket %s: %w", b, err)
			}
			took, n, err := putFloor(ctx, c, filepath.Join(srv.Root, bucket), b)
			objects = n
			return took, err
		})
		if err != nil {
			return err
		}
		ship, shipFloor = append(ship, shipTook.Seconds()), append(shipFloor, floorTook.Seconds())

		// The restore and its floor each make a folder of their own, and
		// none is removed until the run ends (abba says why).
		restTook, floorTook, err := abba(func(i int) (time.Duration, error) {
			into := filepath.Join(dir, fmt.Sprintf("restore-%d-%d", round, i))
			start := time.Now()
			if err := profiled(fmt.Sprintf("restore-%d-%d", round+1, i), func() error {
				_, err := backup.Restore(ctx, tgt, into, backup.RestoreOptions{Key: key, Logger: slog.New(slog.DiscardHandler)})
				return err
			}); err != nil {
				return 0, fmt.Errorf("restore: %w", err)
			}
			return time.Since(start), nil
		}, func(i int) (time.Duration, error) {
			return getFloor(ctx, c, bucket, src, filepath.Join(dir, fmt.Sprintf("floor-%d-%d", round, i)))
		})
		if err != nil {
			return err
		}
		rest, restFloor = append(rest, restTook.Seconds()), append(restFloor, floorTook.Seconds())
		fmt.Fprintf(out, "  round %d: ship %.2f s (floor %.2f s), restore %.2f s (floor %.2f s); load %s\n",
			round+1, ship[round], shipFloor[round], rest[round], restFloor[round], benchkit.LoadAverage())
	}
	sh, shf, re, ref := benchkit.Median(ship), benchkit.Median(shipFloor), benchkit.Median(rest), benchkit.Median(restFloor)
	verdict := func(ok bool) string {
		if ok {
			return "meets"
		}
		return "MISSES"
	}
	mb := float64(bytesUp) / 1e6
	fmt.Fprintf(out, "backup: %d moments, %d objects, %.1f MB, to versitygw on 127.0.0.1; medians of %d rounds; load average (1, 5, 15 min) %s\n",
		*backupMoments, objects, mb, *backupRounds, benchkit.LoadAverage())
	fmt.Fprintf(out, "  ship (a first copy):    %6.2f s, %6.1f MB/s   floor (same objects, SDK PUTs): %6.2f s, %6.1f MB/s   %3.0f%% of floor (goal >= 80%%: %s)\n",
		sh, mb/sh, shf, mb/shf, 100*shf/sh, verdict(shf/sh >= 0.8))
	fmt.Fprintf(out, "  restore (all, checked): %6.2f s, %6.1f MB/s   floor (same objects, SDK GETs + rebuild): %6.2f s   %3.0f%% of floor (goal >= 70%%: %s); under 2 min: %s\n",
		re, mb/re, ref, 100*ref/re, verdict(ref/re >= 0.7), verdict(re < 120))
	// Captures beside shipping: the same originals uploaded to an engine
	// that keeps no copy, and to one whose Keeper ships each as it comes.
	var alone, beside []float64
	for round := range *backupRounds {
		for _, ship := range []bool{false, true} {
			bucket := ""
			if ship {
				bucket = fmt.Sprintf("beside-%d", round)
				if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
					return fmt.Errorf("make the bucket %s: %w", bucket, err)
				}
			}
			ms, err := capturesBeside(ctx, src, filepath.Join(dir, fmt.Sprintf("captures-%d-%v", round, ship)), bucket, opts, round)
			if err != nil {
				return err
			}
			if ship {
				beside = append(beside, ms)
			} else {
				alone = append(alone, ms)
			}
		}
	}
	ca, cb := benchkit.Median(alone), benchkit.Median(beside)
	fmt.Fprintf(out, "  a capture (a %d KB original, over HTTP), median of %d x %d: %6.1f ms while the copy ships   alone: %6.1f ms   %+.0f%%; load %s\n",
		*backupKB, *backupRounds, *backupBeside, cb, ca, 100*(cb-ca)/ca, benchkit.LoadAverage())
	return nil
}

// capturesBeside starts an engine in dir, a copy of the corpus src, with
// a Keeper shipping it to bucket when bucket is set (its first pass, the
// whole corpus, runs while the captures come), uploads --backup-captures
// originals one after another as a computer's outbox does, and returns
// the median time of one (moment created, original put), in milliseconds.
func capturesBeside(ctx context.Context, src, dir, bucket string, opts backup.Options, round int) (float64, error) {
	if err := copyFolder(src, dir); err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	var slot atomic.Pointer[backup.Keeper]
	se, err := host.Start(ctx, host.Config{
		Engine: engine.Config{Dir: dir, MaxMediaSize: 1 << 30, Logger: slog.New(slog.DiscardHandler),
			OnBatch: func(int, time.Duration) {
				if k := slot.Load(); k != nil {
					k.Kick()
				}
			}},
		Addr: "127.0.0.1:0",
	})
	if err != nil {
		return 0, err
	}
	defer se.Close()
	if bucket != "" {
		tgt, err := backup.Open(ctx, "s3://"+bucket+"/family", opts)
		if err != nil {
			return 0, err
		}
		key, _, err := backup.LoadOrCreateKey(dir)
		if err != nil {
			return 0, err
		}
		k := &backup.Keeper{Shipper: &backup.Shipper{Dir: dir, Target: tgt, Key: key, Logger: slog.New(slog.DiscardHandler)}, LogSeq: se.Engine.LastSeq}
		kctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); k.Run(kctx) }()
		defer func() { cancel(); <-done }()
		slot.Store(k)
	}
	token, err := se.Engine.Tokens().Add("bench", auth.ScopeAdmin)
	if err != nil {
		return 0, err
	}
	cl := client.New(se.URL, token, nil)
	photos, _ := originalBytes()
	size := *backupKB * 1000
	var took []float64
	for i := range *backupBeside {
		body := make([]byte, size)
		if photos != nil {
			p := photos[i%len(photos)]
			copy(body, p[(i*7919)%max(1, len(p)-size):])
			copy(body[size-16:], fmt.Sprintf("%08d%08d", round, i))
		} else {
			rand.Read(body)
		}
		start := time.Now()
		mo, _, err := cl.CreateMoment(ctx, api.CreateMomentRequest{ID: ulid.Make().String(), Kind: api.KindPhoto, Caption: fmt.Sprintf("capture %d", i)})
		if err != nil {
			return 0, err
		}
		if _, _, err := cl.PutMedia(ctx, client.PutMedia{ID: ulid.Make().String(), MomentID: mo.ID, Role: api.RoleOriginal,
			ContentType: "image/jpeg", Body: bytes.NewReader(body), Size: int64(size)}); err != nil {
			return 0, err
		}
		took = append(took, float64(time.Since(start).Microseconds())/1000)
	}
	return benchkit.Median(took), nil
}

// copyFolder copies the engine folder src (closed) to dst, but its lock.
func copyFolder(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		if d.Name() == engine.LockFile || !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// getTo GETs the object key of bucket into the file path, synced.
func getTo(ctx context.Context, c *s3.Client, bucket, key, path string) error {
	obj, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return fmt.Errorf("floor: get %s: %w", key, err)
	}
	defer obj.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(f, obj.Body); err != nil {
		return fmt.Errorf("floor: get %s: %w", key, err)
	}
	return f.Sync()
}

// backupCorpus makes the corpus in dir and says what its originals are.
func backupCorpus(ctx context.Context, dir string) (string, error) {
	e, err := engine.Open(ctx, engine.Config{Dir: dir, MaxMediaSize: 1 << 30, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return "", err
	}
	defer e.Close()
	photos, what := originalBytes()
	size := *backupKB * 1000
	every := max(1, *backupMoments/max(1, *backupPhotos))
	made := 0
	for i := range *backupMoments {
		withOriginal := made < *backupPhotos && i%every == 0
		kind := api.KindNote
		if withOriginal {
			kind = api.KindPhoto
		}
		mo, _, err := e.CreateMoment(ctx, api.CreateMomentRequest{Kind: kind, Caption: fmt.Sprintf("moment %d of the backup benchmark", i)})
		if err != nil {
			return "", err
		}
		if !withOriginal {
			continue
		}
		made++
		body := make([]byte, size)
		if photos != nil {
			// A window of a real camera file, with the moment's number
			// at its end so that each original is its own object.
			p := photos[i%len(photos)]
			off := (i * 7919) % max(1, len(p)-size)
			copy(body, p[off:])
			copy(body[size-8:], fmt.Sprintf("%08d", i))
		} else {
			rand.Read(body)
		}
		if _, _, err := e.PutMedia(ctx, engine.PutMedia{ID: ulid.Make().String(), MomentID: mo.ID, Role: api.RoleOriginal,
			ContentType: "image/jpeg", Body: bytes.NewReader(body), Size: int64(size)}); err != nil {
			return "", err
		}
	}
	return what, nil
}

// originalBytes reads the JPEGs of the test photos of at least the size
// of an original; nil, and random bytes said, when there are none.
func originalBytes() ([][]byte, string) {
	ents, err := os.ReadDir(*photosDir)
	if err != nil {
		return nil, fmt.Sprintf("random bytes: no test photos in %s", *photosDir)
	}
	var out [][]byte
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".jpg") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(*photosDir, e.Name()))
		if err == nil && len(b) >= *backupKB*1000 {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("random bytes: no test photo in %s is %d KB or more", *photosDir, *backupKB)
	}
	return out, fmt.Sprintf("windows of %d real camera files in %s", len(out), *photosDir)
}

// putFloor PUTs every file under root (a bucket's folder in versitygw's
// posix root) into bucket, four at a time as the Shipper puts photos,
// each create-only with its SHA-256 checked by the store.
func putFloor(ctx context.Context, c *s3.Client, root, bucket string) (time.Duration, int, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	slices.Sort(files)
	start := time.Now()
	err = fourAtOnce(len(files), func(i int) error {
		b, err := os.ReadFile(files[i])
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(root, files[i])
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(filepath.ToSlash(rel)), Body: bytes.NewReader(b),
			ContentLength: aws.Int64(int64(len(b))), IfNoneMatch: aws.String("*"),
			ChecksumAlgorithm: types.ChecksumAlgorithmSha256, ChecksumSHA256: aws.String(base64.StdEncoding.EncodeToString(sum[:])),
		}); err != nil {
			return fmt.Errorf("floor: put %s: %w", rel, err)
		}
		return nil
	})
	return time.Since(start), len(files), err
}

// fourAtOnce calls f(0) to f(n-1), four at a time (as the Shipper and
// Restore move photos), and returns a failure.
func fourAtOnce(n int, f func(i int) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ferr error
		next = make(chan int)
	)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					ferr = err
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return ferr
}

// getFloor GETs every object of bucket into files under into, four at a
// time as Restore fetches photos, each synced, then copies src's log there
// and rebuilds its mirror: what a restore cannot do without.
func getFloor(ctx context.Context, c *s3.Client, bucket, src, into string) (time.Duration, error) {
	if err := os.MkdirAll(into, 0o700); err != nil {
		return 0, err
	}
	start := time.Now()
	var keys []string
	pages := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return 0, err
		}
		for _, o := range page.Contents {
			keys = append(keys, *o.Key)
		}
	}
	if err := fourAtOnce(len(keys), func(i int) error {
		return getTo(ctx, c, bucket, keys[i], filepath.Join(into, fmt.Sprintf("%06d", i)))
	}); err != nil {
		return 0, err
	}
	took := time.Since(start)
	// The rebuild, timed alone, on a copy of the source's log.
	db := filepath.Join(into, "engine")
	if err := os.MkdirAll(db, 0o700); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(filepath.Join(src, engine.LogFile))
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(db, engine.LogFile), b, 0o600); err != nil {
		return 0, err
	}
	start = time.Now()
	if err := engine.Rebuild(ctx, db, slog.New(slog.DiscardHandler)); err != nil {
		return 0, fmt.Errorf("floor: rebuild: %w", err)
	}
	return took + time.Since(start), nil
}
