package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// The drill's defaults (CheckOptions).
const (
	// DefaultFullBytes is the photos' size past which a drill fetches a
	// sample of them, not all.
	DefaultFullBytes = 2 << 30
	// DefaultSamplePhotos and DefaultSampleBytes bound the sample: so
	// many photos or so many bytes, whichever comes first.
	DefaultSamplePhotos = 64
	DefaultSampleBytes  = 1 << 30
)

// CheckOptions tune a drill (Check).
type CheckOptions struct {
	// TempDir is the folder the copy is restored under, in a temporary
	// folder of its own removed after; "" is os.TempDir().
	TempDir string
	// FullBytes is the photos' size past which only a sample of them is
	// fetched; 0 is DefaultFullBytes.
	FullBytes int64
	// SamplePhotos and SampleBytes bound that sample; 0 is the default.
	SamplePhotos int
	SampleBytes  int64
	// Key is the copy's key, which an encrypted copy needs.
	Key *Key
	// Now is the clock; nil is time.Now.
	Now    func() time.Time
	Logger *slog.Logger // nil is slog.Default()
}

// ErrDamaged marks a drill that found the copy damaged or incomplete: an
// object that does not hold what was shipped, or one missing.
var ErrDamaged = errors.New("backup: the copy is damaged or incomplete")

// damaged is err, marked ErrDamaged unless it already tells a problem of
// its own (the target away, the key refused...).
func damaged(err error) error {
	if err == nil || ProblemOf(err) != api.BackupOther {
		return err
	}
	return marked{ErrDamaged, err}
}

// marked is err, in its own words, marked with the sentinel kind for
// ProblemOf.
type marked struct{ kind, err error }

func (e marked) Error() string   { return e.err.Error() }
func (e marked) Unwrap() []error { return []error{e.kind, e.err} }

// Check is the drill: it restores the copy in t into a temporary folder
// (Restore checks every record and every photo it fetches, rebuilds the
// mirror and runs fsck), counts the restored moments and the bytes of
// every object in the copy, and removes the folder. When the photos are
// more than opts.FullBytes it fetches the whole log but only a random
// sample of the photos, and checks that every other photo the log names
// is in the copy at its size.
//
// It returns the result in both cases, and with a failure an error that
// says what is wrong (ProblemOf tells its problem: api.BackupDamaged for
// a copy that does not hold what was shipped).
func Check(ctx context.Context, t Target, opts CheckOptions) (*api.BackupCheck, error) {
	c, _, err := checkSeq(ctx, t, opts)
	return c, err
}

// checkSeq is Check, also telling the last seq restored (0 on failure).
func checkSeq(ctx context.Context, t Target, opts CheckOptions) (*api.BackupCheck, uint64, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	c := &api.BackupCheck{At: now()}
	seq, err := check(ctx, t, opts, c)
	c.OK = err == nil
	if err != nil {
		seq = 0
	}
	return c, seq, damaged(err)
}

func check(ctx context.Context, t Target, opts CheckOptions, c *api.BackupCheck) (uint64, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	full, photos, photoBytes := opts.FullBytes, opts.SamplePhotos, opts.SampleBytes
	if full <= 0 {
		full = DefaultFullBytes
	}
	if photos <= 0 {
		photos = DefaultSamplePhotos
	}
	if photoBytes <= 0 {
		photoBytes = DefaultSampleBytes
	}
	// An encrypted copy's photos are larger than the log says by age's
	// overhead.
	m, err := readManifest(ctx, t)
	if err != nil {
		return 0, err
	}
	stored := func(size int64) int64 { return size }
	if m.Encryption != "" {
		stored = sealedSize
	}
	// Every object's size; the photos' by SHA-256.
	media := map[string]int64{}
	var mediaBytes int64
	err = t.List(ctx, "", func(name string, size int64) error {
		c.Bytes += size
		if sha, ok := strings.CutPrefix(name, mediaPrefix); ok && api.ValidSHA256(sha) {
			media[sha] = size
			mediaBytes += size
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("backup: list the copy in %s: %w", t, err)
	}
	ropts := RestoreOptions{Logger: log, Key: opts.Key}
	var fsckOut bytes.Buffer
	ropts.Out = &fsckOut
	var (
		mu      sync.Mutex // SampleMedia is called by Restore's fetchers at once
		missing error
	)
	if mediaBytes > full {
		c.Sampled = true
		sample := pickSample(media, photos, photoBytes)
		ropts.SampleMedia = func(sha string, size int64) bool {
			if sample[sha] {
				return true
			}
			mu.Lock()
			defer mu.Unlock()
			// Not fetched: it must still be in the copy, whole. One
			// not listed may have been shipped since the listing, with
			// the segment that names it: ask for it.
			n, ok := media[sha]
			if !ok && missing == nil {
				var err error
				if n, err = t.Stat(ctx, mediaName(sha)); err == nil {
					ok = true
				} else if !errors.Is(err, ErrNotFound) {
					missing = fmt.Errorf("backup: ask the copy in %s for %s: %w", t, mediaName(sha), err)
					return false
				}
			}
			if missing == nil && (!ok || n != stored(size)) {
				missing = fmt.Errorf("backup: %s in %s is missing or cut short (%d bytes listed, the log says %d)", mediaName(sha), t, n, size)
			}
			return false
		}
		log.Info("backup: the drill fetches a sample of the photos", "target", t.String(), "photos", len(media), "bytes", mediaBytes, "sample", len(sample))
	}
	base := opts.TempDir
	if base == "" {
		base = os.TempDir()
	}
	tmp, err := os.MkdirTemp(base, "spark-backup-check-")
	if err != nil {
		return 0, fmt.Errorf("backup: make the drill's temporary folder: %w", err)
	}
	defer func() {
		if err := os.RemoveAll(tmp); err != nil {
			log.Warn("backup: could not remove the drill's temporary folder; remove it by hand", "dir", tmp, "err", err)
		}
	}()
	res, err := Restore(ctx, t, tmp, ropts)
	if errors.Is(err, ErrFsck) {
		return 0, fmt.Errorf("%w: %s", err, fsckFailures(fsckOut.String()))
	}
	if err != nil {
		return 0, err
	}
	if missing != nil {
		return 0, missing
	}
	c.Moments, err = countMoments(ctx, tmp)
	return res.LastSeq, err
}

// pickSample picks photos at random, up to n of them or size bytes.
func pickSample(media map[string]int64, n int, size int64) map[string]bool {
	shas := make([]string, 0, len(media))
	for sha := range media {
		shas = append(shas, sha)
	}
	rand.Shuffle(len(shas), func(i, j int) { shas[i], shas[j] = shas[j], shas[i] })
	sample := map[string]bool{}
	var total int64
	for _, sha := range shas {
		if len(sample) >= n || total+media[sha] > size && len(sample) > 0 {
			break
		}
		sample[sha] = true
		total += media[sha]
	}
	return sample
}

// fsckFailures is fsck's FAIL lines, for the reason of a failed drill.
func fsckFailures(out string) string {
	var fails []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			fails = append(fails, strings.TrimPrefix(l, "FAIL "))
		}
	}
	if len(fails) == 0 {
		return strings.TrimSpace(out)
	}
	return strings.Join(fails, "; ")
}

// countMoments counts the moments (not deleted) of the restored mirror.
func countMoments(ctx context.Context, dir string) (int, error) {
	m, err := mirror.Open(ctx, filepath.Join(dir, engine.MirrorFile), mirror.Options{})
	if err != nil {
		return 0, fmt.Errorf("backup: open the restored mirror: %w", err)
	}
	defer m.Close()
	var n int
	if err := m.QueryRow(ctx, "SELECT count(*) FROM moments WHERE deleted_at IS NULL").Scan(&n); err != nil {
		return 0, fmt.Errorf("backup: count the restored moments: %w", err)
	}
	return n, nil
}
