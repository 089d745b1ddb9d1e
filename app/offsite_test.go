package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/backup"
	"github.com/sparkfamily/spark/internal/versitygw"
)

// fastOffsite makes the keeper pass every 100 ms for the test.
func fastOffsite(tb testing.TB) {
	tb.Helper()
	old := offsiteEvery
	offsiteEvery = 100 * time.Millisecond
	tb.Cleanup(func() { offsiteEvery = old })
}

// offsiteHealth is the copy's health as Settings reads it; nil when none.
func offsiteHealth(tb testing.TB, a *App) *api.BackupHealth {
	tb.Helper()
	v, err := a.Settings.Offsite()
	if err != nil {
		tb.Fatalf("Offsite: %v", err)
	}
	return v.Health
}

// shipped tells whether the copy holds every op of the engine's log.
func shipped(tb testing.TB, a *App) func() bool {
	return func() bool {
		h := offsiteHealth(tb, a)
		return h != nil && h.State == api.BackupCurrent && h.Seq > 0 && h.ShippedSeq == h.Seq && h.ShippedAt != nil
	}
}

// TestSettings_OffsiteFolder: a folder set up in Settings gets the copy of
// the engine on this computer, its health read from the engine's; a folder
// gone (a disk unplugged) is said within a pass, and the status bar's
// Status carries the same; the choice is kept across a restart; turned
// off, the health says nothing.
func TestSettings_OffsiteFolder(t *testing.T) {
	fastOffsite(t)
	dir := t.TempDir()
	a, _ := startApp(t, dir, nil)
	if _, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 1)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "delivery", delivered(a))
	if h := offsiteHealth(t, a); h != nil {
		t.Fatalf("health before any copy is set up = %+v, want none", h)
	}

	disk := t.TempDir()
	copyDir := filepath.Join(disk, "Spark copy")
	choice := Offsite{Kind: OffsiteFolder, Folder: copyDir + " "}
	r, err := a.Settings.TestOffsite(choice)
	if err != nil || !r.OK || r.Code != OffsiteTestOK {
		t.Fatalf("TestOffsite(a fresh folder on the disk) = %+v, %v; want ok", r, err)
	}
	if _, err := os.Stat(copyDir); err != nil {
		t.Fatalf("the test made no folder: %v", err)
	}
	v, err := a.Settings.SetOffsite(choice)
	if err != nil {
		t.Fatalf("SetOffsite: %v", err)
	}
	if v.Choice.Folder != copyDir || v.Recovery.Place != backup.FileURL(copyDir) || v.Engine != EngineLocal {
		t.Errorf("SetOffsite view = %+v", v)
	}
	waitFor(t, "the copy current", shipped(t, a))
	if _, err := os.Stat(filepath.Join(copyDir, backup.ManifestName)); err != nil {
		t.Errorf("no manifest in the folder: %v", err)
	}
	// The recovery text Settings shows opens the copy: a restore with it
	// alone is the engine's log.
	key, err := backup.ParseKey(strings.NewReader(v.Recovery.Key))
	if err != nil {
		t.Fatalf("the recovery text holds no key: %v\n%s", err, v.Recovery.Key)
	}
	tgt, err := backup.OpenFolder(copyDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := backup.Restore(context.Background(), tgt, filepath.Join(t.TempDir(), "restored"), backup.RestoreOptions{Key: key}); err != nil {
		t.Errorf("a restore with the recovery text's key: %v", err)
	}
	st, err := a.Settings.Status()
	if err != nil || st.Backup == nil || st.Backup.State != api.BackupCurrent || st.BackupFailingSince != "" {
		t.Errorf("Status().Backup = %+v (failing since %q), %v; want current", st.Backup, st.BackupFailingSince, err)
	}

	// The copy emptied by hand: Spark sends everything again.
	ents, err := os.ReadDir(copyDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(copyDir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the emptied copy sent again", func() bool {
		_, err := os.Stat(filepath.Join(copyDir, backup.ManifestName))
		return err == nil && shipped(t, a)()
	})

	// The disk unplugged: the folder and its parent are gone at once. (A
	// removal file by file was no unplugging: a drill beside it found the
	// copy's manifest without its log, damaged, 3 runs in 15.)
	if err := os.Rename(disk, disk+".unplugged"); err != nil {
		t.Fatal(err)
	}
	gone := time.Now()
	waitFor(t, "the copy failing, unreachable", func() bool {
		h := offsiteHealth(t, a)
		return h != nil && h.State == api.BackupFailing && h.Problem == api.BackupUnreachable
	})
	if d := time.Since(gone); d > 2*time.Second {
		t.Errorf("the unplugged disk was said after %v, more than a few passes", d)
	}
	if _, err := os.Stat(copyDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the keeper made the unplugged disk's folder again: %v", err)
	}
	st, _ = a.Settings.Status()
	if st.Backup == nil || st.Backup.Problem != api.BackupUnreachable || st.BackupFailingSince == "" {
		t.Errorf("Status() with the disk unplugged: backup %+v, failing since %q", st.Backup, st.BackupFailingSince)
	}
	// Since when: the engine's word, not when this window first asked.
	if st.Backup == nil || st.Backup.FailingSince == nil || st.BackupFailingSince != st.Backup.FailingSince.UTC().Format(time.RFC3339) {
		t.Errorf("Status() failing since %q; the engine says %v", st.BackupFailingSince, st.Backup.FailingSince)
	}

	// Spark started again with the disk still unplugged: the choice was
	// kept, the copy is unreachable, and its folder is not made on this
	// computer's own disk; plugged in again, the copy is made there.
	a.Shutdown()
	p, err := loadPrefs(dir)
	if err != nil || p.Offsite.Kind != OffsiteFolder || p.Offsite.Folder != copyDir {
		t.Fatalf("prefs after restart = %+v, %v", p.Offsite, err)
	}
	a, _ = startApp(t, dir, nil)
	waitFor(t, "the copy unreachable after a restart", func() bool {
		h := offsiteHealth(t, a)
		return h != nil && h.State == api.BackupFailing && h.Problem == api.BackupUnreachable
	})
	if _, err := os.Stat(disk); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unplugged disk's folder was made on this computer's disk: %v", err)
	}
	if err := os.MkdirAll(disk, 0o700); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the copy current once the disk is back", shipped(t, a))

	if v, err = a.Settings.TurnOffOffsite(); err != nil || v.Health != nil || v.Choice.Kind != "" {
		t.Fatalf("TurnOffOffsite = %+v, %v; want no copy", v, err)
	}
	if p, _ := loadPrefs(dir); p.Offsite.Kind != "" {
		t.Errorf("prefs after TurnOffOffsite = %+v", p.Offsite)
	}
}

// TestSettings_TestOffsiteRefuses: each place Spark cannot keep a copy in
// gets its own code, and SetOffsite refuses it with that code and saves
// nothing.
func TestSettings_TestOffsiteRefuses(t *testing.T) {
	dir := t.TempDir()
	a, _ := startApp(t, dir, nil)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, backup.ManifestName), []byte(`{"format":1,"first_record_sha256":"00","engine_id":"01JAAAAAAAAAAAAAAAAAAAAAAA"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    Offsite
		want string
	}{
		{"NoKind", Offsite{}, OffsiteTestNoKind},
		{"NoFolder", Offsite{Kind: OffsiteFolder, Folder: "  "}, OffsiteTestNoFolder},
		{"RelativeFolder", Offsite{Kind: OffsiteFolder, Folder: "copy"}, OffsiteTestNoFolder},
		{"AFile", Offsite{Kind: OffsiteFolder, Folder: file}, OffsiteTestNotFolder},
		{"DiskUnplugged", Offsite{Kind: OffsiteFolder, Folder: filepath.Join(t.TempDir(), "media", "usb", "Spark")}, OffsiteTestNoPlace},
		{"InsideData", Offsite{Kind: OffsiteFolder, Folder: filepath.Join(dir, "copy")}, OffsiteTestInsideData},
		{"AnotherEnginesCopy", Offsite{Kind: OffsiteFolder, Folder: other}, OffsiteTestOtherCopy},
		{"NoAddress", Offsite{Kind: OffsiteProvider, Bucket: "b", KeyID: "k", Secret: "s"}, OffsiteTestNoAddress},
		{"NotAnAddress", Offsite{Kind: OffsiteProvider, Address: "s3.example.org", Bucket: "b", KeyID: "k", Secret: "s"}, OffsiteTestNoAddress},
		{"NoBucket", Offsite{Kind: OffsiteProvider, Address: "https://s3.example.org", Bucket: "/", KeyID: "k", Secret: "s"}, OffsiteTestNoBucket},
		{"NoSecret", Offsite{Kind: OffsiteProvider, Address: "https://s3.example.org", Bucket: "b", KeyID: "k"}, OffsiteTestNoKeyID},
	}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		tests = append(tests, struct {
			name string
			o    Offsite
			want string
		}{"NotAllowed", Offsite{Kind: OffsiteFolder, Folder: filepath.Join(ro, "Spark")}, api.BackupDenied})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := a.Settings.TestOffsite(tt.o)
			if err != nil || r.OK || r.Code != tt.want {
				t.Errorf("TestOffsite = %+v, %v; want code %q", r, err, tt.want)
			}
			_, err = a.Settings.SetOffsite(tt.o)
			if ue := toUIError(err); ue == nil || ue.Code != tt.want {
				t.Errorf("SetOffsite error = %v; want code %q", err, tt.want)
			}
			if p, _ := loadPrefs(dir); p.Offsite.Kind != "" {
				t.Errorf("a refused place was saved: %+v", p.Offsite)
			}
		})
	}
}

// TestSettings_OffsiteProvider: a storage provider (versitygw, a real S3
// server) with the key typed in Settings gets the copy; a wrong secret
// and a bucket that is not there are each their own code.
func TestSettings_OffsiteProvider(t *testing.T) {
	fastOffsite(t)
	srv := versitygw.Start(t)
	srv.Bucket(t, "family")
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"} {
		t.Setenv(v, "")
	}
	a, _ := startApp(t, t.TempDir(), nil)
	good := Offsite{Kind: OffsiteProvider, Address: srv.Endpoint, Bucket: "family/spark", KeyID: versitygw.Access, Secret: versitygw.Secret}

	wrong := good
	wrong.Secret = "not-the-secret"
	if r, _ := a.Settings.TestOffsite(wrong); r.OK || r.Code != api.BackupDenied {
		t.Errorf("TestOffsite(a wrong secret) = %+v; want denied", r)
	}
	nobucket := good
	nobucket.Bucket = "nobody/spark"
	if r, _ := a.Settings.TestOffsite(nobucket); r.OK || r.Code != api.BackupGone {
		t.Errorf("TestOffsite(no such bucket) = %+v; want gone", r)
	}
	if r, _ := a.Settings.TestOffsite(good); !r.OK || r.Place != "s3://family/spark" {
		t.Fatalf("TestOffsite(the right key) = %+v; want ok", r)
	}
	if _, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 2)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "delivery", delivered(a))
	v, err := a.Settings.SetOffsite(good)
	if err != nil || v.Recovery.Address != srv.Endpoint || v.Recovery.KeyID != versitygw.Access || strings.Contains(v.Recovery.Key+v.Recovery.Place, versitygw.Secret) {
		t.Fatalf("SetOffsite = %+v, %v", v.Recovery, err)
	}
	waitFor(t, "the copy in the bucket current", shipped(t, a))
}

// TestSettings_OffsiteOfFamilyEngine: with a family engine, Settings
// reads the family engine's copy from its health, by the same path.
func TestSettings_OffsiteOfFamilyEngine(t *testing.T) {
	fastOffsite(t)
	ctx := context.Background()
	family, err := StartLocalEngine(ctx, LocalConfig{Dir: t.TempDir(), Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { family.Close() })
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(family.URL, family.Token); err != nil {
		t.Fatal(err)
	}
	if v, err := a.Settings.Offsite(); err != nil || v.Engine != EngineRemote || !v.Reachable || v.Health != nil {
		t.Fatalf("Offsite() of a family engine keeping no copy = %+v, %v", v, err)
	}
	t2, err := backup.OpenFolder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	family.SetBackup(t2)
	waitFor(t, "the family engine's copy said", func() bool {
		h := offsiteHealth(t, a)
		return h != nil && h.State == api.BackupCurrent
	})
}

// TestFailingSpell: since when the copy has been failing is the engine's
// word when its health says it (an engine that failed an hour before
// this window asked), else when this window first saw it failing (an
// engine older than failing_since), kept while it fails and forgotten
// when it stops.
func TestFailingSpell(t *testing.T) {
	hourAgo := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	failing := &api.BackupHealth{State: api.BackupFailing, Problem: api.BackupUnreachable}
	saying := &api.BackupHealth{State: api.BackupFailing, Problem: api.BackupUnreachable, FailingSince: &hourAgo}
	current := &api.BackupHealth{State: api.BackupCurrent}
	const url = "http://127.0.0.1:1"

	var f failingSpell
	if got := f.seen(url, saying); got != hourAgo.Format(time.RFC3339) {
		t.Errorf("the engine says it fails since %v: seen %q", hourAgo, got)
	}
	if got := f.seen(url, current); got != "" {
		t.Errorf("current: seen %q, want nothing", got)
	}
	before := time.Now().UTC().Truncate(time.Second)
	first := f.seen(url, failing)
	at, err := time.Parse(time.RFC3339, first)
	if err != nil || at.Before(before) || at.After(time.Now()) {
		t.Errorf("an engine that does not say: seen %q, want about now (%v)", first, before)
	}
	if got := f.seen(url, failing); got != first {
		t.Errorf("failing still: seen %q, want %q kept", got, first)
	}
	if got := f.seen(url, nil); got != "" {
		t.Errorf("no copy: seen %q, want nothing", got)
	}
}
