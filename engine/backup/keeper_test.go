package backup

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/versitygw"
)

// TestKeeper_Check: a drill that fails puts the Keeper in check_failed,
// damaged, with the object named, and a pass that succeeds does not clear
// it; the result is kept in the folder's backup-check.json, so a Keeper
// started again knows it; the next drill that succeeds clears it.
func TestKeeper_Check(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	root := t.TempDir()
	tgt := mustFolder(t, root)
	newKeeper := func() *Keeper {
		return &Keeper{Shipper: &Shipper{Dir: src, Target: tgt, SegmentBytes: 1 << 10, Key: testKey, Logger: quiet}, LogSeq: e.LastSeq, CheckOptions: CheckOptions{TempDir: t.TempDir(), Key: testKey, Logger: quiet}}
	}
	k := newKeeper()
	ctx := context.Background()
	capture(t, e, 0, 6)
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if h := k.Health(); h.State != api.BackupCurrent || h.Check == nil || !h.Check.OK || h.Check.Moments != 6 {
		t.Fatalf("Health after a good drill = %+v (check %+v), want current, ok, 6 moments", h, h.Check)
	}
	name := flipObject(t, root, "log/")
	if _, err := k.Check(ctx); err == nil {
		t.Fatal("a drill of a damaged copy succeeded")
	}
	want := func(k *Keeper, when string) {
		t.Helper()
		h := k.Health()
		if h.State != api.BackupCheckFailed || h.Problem != api.BackupDamaged || !strings.Contains(h.Reason, name) || h.Check == nil || h.Check.OK {
			t.Errorf("Health %s = %+v (check %+v), want check_failed, damaged, naming %s", when, h, h.Check, name)
		}
	}
	want(k, "after a failed drill")
	capture(t, e, 6, 2)
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	want(k, "after a pass that succeeded")

	var rec checkRecord
	b, err := os.ReadFile(filepath.Join(src, CheckFile))
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.Format != 1 || rec.Target != tgt.String() || rec.Check.OK {
		t.Fatalf("%s = %s (%v), want format 1, the target, the failed check", CheckFile, b, err)
	}
	k2 := newKeeper()
	want(k2, "of a Keeper started again")

	flipObject(t, root, "log/") // the same byte back
	if _, err := k2.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if h := k2.Health(); h.State != api.BackupCatchingUp && h.State != api.BackupCurrent || h.Problem != "" || !h.Check.OK || h.Check.Moments != 8 {
		t.Errorf("Health after the drill succeeded again = %+v (check %+v), want the problem cleared", h, h.Check)
	}
}

// TestKeeper_CheckSchedule: the first drill comes 10 minutes after the
// start, or at once when the last one (kept in backup-check.json) is more
// than CheckEvery old, else CheckEvery after it.
func TestKeeper_CheckSchedule(t *testing.T) {
	src := t.TempDir()
	start := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: mustFolder(t, t.TempDir()), Key: testKey, Logger: quiet}, Now: func() time.Time { return start }}
	if got := k.nextCheck(start); !got.Equal(start.Add(10 * time.Minute)) {
		t.Errorf("no drill before: the first at %v, want 10 minutes after the start", got)
	}
	for _, c := range []struct {
		ago  time.Duration
		want time.Time
	}{
		{25 * time.Hour, start},
		{time.Hour, start.Add(23 * time.Hour)},
	} {
		rec := checkRecord{Format: 1, Target: k.Shipper.Target.String(), Check: api.BackupCheck{At: start.Add(-c.ago), OK: true}}
		if err := writeCheckRecord(src, &rec); err != nil {
			t.Fatal(err)
		}
		k := &Keeper{Shipper: k.Shipper, Now: k.Now}
		k.load()
		if got := k.nextCheck(start); !got.Equal(c.want) {
			t.Errorf("the last drill %s ago: the next at %v, want %v", c.ago, got, c.want)
		}
	}
	// A copy emptied by hand and shipped again is drilled at once; once
	// drilled, a failure waits the hour as any other.
	k.mu.Lock()
	k.lost, k.whole, k.wholeAt = ErrLost, true, start
	k.check = &checkRecord{Check: api.BackupCheck{At: start.Add(-time.Minute), OK: false}}
	if got := k.nextCheckLocked(start); !got.Equal(start) {
		t.Errorf("a copy shipped again after it was emptied: the next drill at %v, want at once", got)
	}
	k.check = &checkRecord{Check: api.BackupCheck{At: start.Add(time.Second), OK: false}}
	if got, want := k.nextCheckLocked(start), start.Add(time.Second+time.Hour); !got.Equal(want) {
		t.Errorf("its drill failed: the next at %v, want an hour after it (%v), not at once again", got, want)
	}
	k.mu.Unlock()
	// A drill of another target says nothing of this one's.
	rec := checkRecord{Format: 1, Target: "file:///elsewhere", Check: api.BackupCheck{At: start, OK: false}}
	if err := writeCheckRecord(src, &rec); err != nil {
		t.Fatal(err)
	}
	k = &Keeper{Shipper: k.Shipper, Now: k.Now}
	k.load()
	if h := k.Health(); h.Check != nil || h.State == api.BackupCheckFailed {
		t.Errorf("a drill of another target was taken: %+v", h)
	}
}

// enospc is a target that is full: every Put fails as a full disk does.
type enospc struct{ Target }

func (enospc) Put(_ context.Context, name string, _ io.Reader, _ int64, _ [32]byte) error {
	return &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
}

// TestKeeper_Status (issue 34, item 4): the copy emptied by hand, the
// key revoked, a full target and a target gone each turn Health failing
// with the right problem at the next pass (so within the 10 s interval
// and the pass's own time: the test checks that is under a minute), in
// words that say what to do.
func TestKeeper_Status(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	capture(t, e, 0, 6)
	ctx := context.Background()
	// passes runs a good pass, then does what breaks the copy, then a
	// pass that must fail with problem, its reason holding words.
	passes := func(t *testing.T, k *Keeper, breakIt func(), problem string, words ...string) {
		t.Helper()
		if err := k.Pass(ctx); err != nil {
			t.Fatalf("the pass before: %v", err)
		}
		breakIt()
		capture(t, e, 100, 1)
		t0 := time.Now()
		k.Pass(ctx)
		d := time.Since(t0)
		h := k.Health()
		if h.State != api.BackupFailing || h.Problem != problem {
			t.Fatalf("Health after the pass = %+v, want failing, %s", h, problem)
		}
		for _, w := range words {
			if !strings.Contains(h.Reason, w) {
				t.Errorf("the reason %q does not say %q", h.Reason, w)
			}
		}
		if d+DefaultInterval > time.Minute {
			t.Errorf("the failing pass took %s: with the %s interval, the status says so after more than a minute", d, DefaultInterval)
		}
		// Since when it fails: the first failing pass, kept by the next.
		if h.FailingSince == nil || h.FailingSince.Before(t0) || h.FailingSince.After(time.Now()) {
			t.Fatalf("failing since %v, want the time of the failing pass (%v + %v)", h.FailingSince, t0, d)
		}
		since := *h.FailingSince
		k.Pass(ctx)
		if h := k.Health(); h.FailingSince == nil || !h.FailingSince.Equal(since) {
			t.Errorf("after a second failing pass failing since %v, want %v still", h.FailingSince, since)
		}
		t.Logf("%s: said in %s + the interval: %s", problem, d.Round(time.Millisecond), h.Reason)
	}
	keeper := func(tg Target) *Keeper {
		return &Keeper{Shipper: &Shipper{Dir: src, Target: tg, SegmentBytes: 1 << 10, Key: testKey, Logger: quiet}, LogSeq: e.LastSeq, CheckOptions: CheckOptions{TempDir: t.TempDir(), Key: testKey, Logger: quiet}}
	}

	t.Run("Emptied/folder", func(t *testing.T) {
		root := t.TempDir()
		tg := mustFolder(t, root)
		k := keeper(tg)
		passes(t, k, func() {
			ents, _ := os.ReadDir(root)
			for _, e := range ents {
				if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}, api.BackupGone, "lost what Spark had shipped", "emptied", "shipping everything again")
		testReshipped(t, k, e.LastSeq())
	})
	t.Run("Emptied/s3", func(t *testing.T) {
		srv, open := s3Target(t)
		tg := open(t)
		k := keeper(tg)
		passes(t, k, func() {
			// The root account deletes every object, as a person with the
			// store's console would: the bucket keeps no lock.
			c := srv.Client()
			prefix := strings.Fields(strings.TrimPrefix(tg.String(), "s3://spark/"))[0] + "/"
			out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("spark"), Prefix: &prefix})
			if err != nil || len(out.Contents) == 0 {
				t.Fatalf("list: %v (%d objects)", err, len(out.Contents))
			}
			for _, o := range out.Contents {
				if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("spark"), Key: o.Key}); err != nil {
					t.Fatal(err)
				}
			}
		}, api.BackupGone, "lost what Spark had shipped")
		testReshipped(t, k, e.LastSeq())
	})
	t.Run("Denied/s3", func(t *testing.T) {
		srv := versitygw.StartWith(t, versitygw.Options{IAM: true})
		srv.Env(t)
		srv.User(t, "dad", "dads-secret-0123456789")
		srv.BucketFor(t, "family", "dad")
		t.Setenv("AWS_ACCESS_KEY_ID", "dad")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "dads-secret-0123456789")
		tg, err := Open(ctx, "s3://family/spark", Options{Endpoint: srv.Endpoint})
		if err != nil {
			t.Fatal(err)
		}
		passes(t, keeper(tg), func() { srv.DeleteUser(t, "dad") }, api.BackupDenied, "AWS_SECRET_ACCESS_KEY")
	})
	t.Run("Full", func(t *testing.T) {
		root := t.TempDir()
		k := keeper(mustFolder(t, root))
		passes(t, k, func() { k.Shipper.Target = enospc{mustFolder(t, root)} }, api.BackupFull)
	})
	t.Run("Gone/folder", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "disk")
		passes(t, keeper(mustFolder(t, root)), func() {
			if err := os.RemoveAll(root); err != nil {
				t.Fatal(err)
			}
		}, api.BackupUnreachable, "plug in the disk")
	})
	t.Run("Gone/s3", func(t *testing.T) {
		srv, open := s3Target(t)
		passes(t, keeper(open(t)), srv.Stop, api.BackupUnreachable, "cannot reach the store")
	})
}

// testReshipped: after the copy was emptied, the pass shipped it all
// again, the state stays failing (gone) through the next pass, and the
// drill that follows the re-ship, once it succeeds, clears it.
func testReshipped(t *testing.T, k *Keeper, last uint64) {
	t.Helper()
	ctx := context.Background()
	if got, _, err := lastSegment(ctx, k.Shipper.Target); err != nil || got != last {
		t.Fatalf("after the pass the copy holds seq %d (%v), want all %d shipped again", got, err, last)
	}
	if !k.checkDue() {
		t.Errorf("no drill is due after the copy was shipped again")
	}
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if h := k.Health(); h.State != api.BackupFailing || h.Problem != api.BackupGone {
		t.Errorf("the next pass: %+v, want still failing, gone, until a drill checks the copy again", h)
	}
	if _, err := k.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if h := k.Health(); h.State != api.BackupCurrent || h.Problem != "" || h.Reason != "" || h.FailingSince != nil {
		t.Errorf("after the drill: %+v, want current, failing since no time", h)
	}
}

// TestKeeper_RunDrills: Run drills at once a copy whose last drill (kept
// in backup-check.json) is more than CheckEvery old, beside its passes.
func TestKeeper_RunDrills(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	capture(t, e, 0, 4)
	tgt := mustFolder(t, t.TempDir())
	old := time.Now().Add(-25 * time.Hour)
	if err := writeCheckRecord(src, &checkRecord{Format: 1, Target: tgt.String(), Check: api.BackupCheck{At: old, OK: true}}); err != nil {
		t.Fatal(err)
	}
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: tgt, Interval: 20 * time.Millisecond, Key: testKey, Logger: quiet}, LogSeq: e.LastSeq, CheckOptions: CheckOptions{TempDir: t.TempDir(), Key: testKey, Logger: quiet}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if h := k.Health(); h.Check != nil && h.Check.At.After(old) {
			if !h.Check.OK || h.Check.Moments != 4 || h.State != api.BackupCurrent {
				t.Fatalf("Health after Run's drill = %+v (check %+v), want current, ok, 4 moments", h, h.Check)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s Run has not drilled a copy last drilled 25 h ago: %+v", k.Health())
		}
	}
}

// TestKeeper_TakesRecordedCheck: a drill that `backup check --data`
// records (RecordCheck) beside a running Keeper is in its Health at the
// next pass.
func TestKeeper_TakesRecordedCheck(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	capture(t, e, 0, 2)
	tgt := mustFolder(t, t.TempDir())
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: tgt, Key: testKey, Logger: quiet}, LogSeq: e.LastSeq}
	ctx := context.Background()
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a new modification time
	failed := &api.BackupCheck{At: time.Now(), OK: false}
	if err := RecordCheck(src, tgt, failed, marked{ErrDamaged, errors.New("log/x.seg is damaged")}); err != nil {
		t.Fatal(err)
	}
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if h := k.Health(); h.State != api.BackupCheckFailed || h.Problem != api.BackupDamaged || h.Reason != "log/x.seg is damaged" || h.Check == nil || h.Check.OK {
		t.Errorf("Health after a drill recorded beside it = %+v, want check_failed, damaged", h)
	}
}

// TestKeeper_DrillMissedCopy: a drill that found no copy (its disk
// unplugged) is tried again as soon as a pass ships the copy once more,
// not an hour on: in the window, the copy said "check failed" for an hour
// after the disk was plugged back in (TestSettings_OffsiteFolder, 1 run
// in 4 here).
func TestKeeper_DrillMissedCopy(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.MkdirAll(filepath.Join(disk, "Spark copy"), 0o700); err != nil {
		t.Fatal(err)
	}
	tgt := mustFolder(t, filepath.Join(disk, "Spark copy"))
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: tgt, Key: testKey, Logger: quiet}, LogSeq: e.LastSeq,
		CheckOptions: CheckOptions{TempDir: t.TempDir(), Key: testKey, Logger: quiet}}
	ctx := context.Background()
	capture(t, e, 0, 3)
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if k.checkDue() {
		t.Fatal("a drill is due right after one that succeeded")
	}

	// Unplugged: the pass and the drill find no copy.
	away := disk + ".away"
	if err := os.Rename(disk, away); err != nil {
		t.Fatal(err)
	}
	if err := k.Pass(ctx); err == nil {
		t.Fatal("a pass to an unplugged disk succeeded")
	}
	if _, err := k.Check(ctx); err == nil {
		t.Fatal("a drill of an unplugged disk succeeded")
	}
	if k.checkDue() {
		t.Error("a drill is due again at once while the disk is still unplugged")
	}

	// Plugged in again, the copy as it was: the pass ships, and the drill
	// is due at once.
	if err := os.Rename(away, disk); err != nil {
		t.Fatal(err)
	}
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if !k.checkDue() {
		t.Fatal("no drill is due after the copy was shipped again onto the disk plugged back in")
	}
	if _, err := k.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if h := k.Health(); h.State != api.BackupCurrent || h.Check == nil || !h.Check.OK {
		t.Errorf("Health after the drill = %+v (check %+v), want current and a good drill", h, h.Check)
	}
}
