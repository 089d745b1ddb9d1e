package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/backup"
)

// Offsite is where the engine on this computer keeps its off-site copy
// (engine/backup), as Dad chose it in Settings: a folder (on an external
// disk, or a share) or a storage provider's bucket. It is kept in the
// settings file (mode 0600), secret included, as the family engine's
// token is.
type Offsite struct {
	// Kind is OffsiteFolder or OffsiteProvider; "" is no copy.
	Kind string `json:"kind"`
	// Folder is the folder's full path (OffsiteFolder).
	Folder string `json:"folder,omitempty"`
	// Address is the storage provider's https:// address, Bucket its
	// bucket and, after a '/', the folder in it ("family/spark"), and
	// KeyID and Secret the key it gave (OffsiteProvider).
	Address string `json:"address,omitempty"`
	Bucket  string `json:"bucket,omitempty"`
	KeyID   string `json:"key_id,omitempty"`
	Secret  string `json:"secret,omitempty"`
}

// The kinds of off-site copy (Offsite.Kind).
const (
	OffsiteFolder   = "folder"
	OffsiteProvider = "provider"
)

// How a test of an off-site copy's place went (OffsiteTestResult.Code,
// and the UIError code of a SetOffsite refused), besides the
// engine/api BackupProblem code of a place that did not let Spark in
// (unreachable, denied, gone, full, other). The window words each
// (words.ts offsiteTestWords).
const (
	OffsiteTestOK         = "ok"          // Spark can read and write there
	OffsiteTestNoKind     = "no_kind"     // neither a folder nor a provider chosen
	OffsiteTestNoFolder   = "no_folder"   // no folder, or not a full path
	OffsiteTestNotFolder  = "not_folder"  // a file, not a folder
	OffsiteTestNoPlace    = "no_place"    // the folder's parent is not there: a disk unplugged?
	OffsiteTestInsideData = "inside_data" // inside Spark's own data folder: not off this computer's data
	OffsiteTestNoAddress  = "no_address"  // no provider address, or not http(s)://HOST
	OffsiteTestNoBucket   = "no_bucket"   // no bucket named
	OffsiteTestNoKeyID    = "no_key_id"   // the key id or the secret left out
	OffsiteTestOtherCopy  = "other_copy"  // the place holds another engine's copy
)

// OffsiteTestResult answers Settings.TestOffsite.
type OffsiteTestResult struct {
	OK bool `json:"ok"`
	// Code is an OffsiteTest code or a BackupProblem code (above).
	Code string `json:"code"`
	// Place is the copy's address for people (file:///..., s3://...).
	Place string `json:"place"`
	// Detail is the technical reason, for "Details".
	Detail string `json:"detail"`
}

// OffsiteView is what Settings shows of the off-site copy.
type OffsiteView struct {
	// Engine is the engine in use, EngineLocal or EngineRemote: Health
	// is that engine's copy, the family engine's when it is remote.
	Engine string `json:"engine"`
	// Choice is the copy set up for the engine on this computer.
	Choice Offsite `json:"choice"`
	// Reachable is false when the engine in use did not answer: then
	// nothing is known of its copy.
	Reachable bool `json:"reachable"`
	// Health is how the copy stands, from the engine's own health
	// (GET /v1/health's backup); nil when it keeps none.
	Health *api.BackupHealth `json:"health"`
	// Recovery is what to keep on paper to bring the moments back from
	// the copy; empty when no copy is set up.
	Recovery Recovery `json:"recovery"`
}

// Recovery is what is needed to restore from the off-site copy of the
// engine on this computer, for the window to word and print.
type Recovery struct {
	// Place is the copy's address (file:///PATH or s3://BUCKET/PREFIX),
	// Address the provider's, and KeyID the provider's key id (the
	// secret is never printed).
	Place   string `json:"place"`
	Address string `json:"address"`
	KeyID   string `json:"key_id"`
	// Key is the text of the key the copy is encrypted with; "" while
	// copies are not encrypted.
	Key string `json:"key"`
}

// Offsite tells how the off-site copy of the engine in use stands.
func (s *Settings) Offsite() (OffsiteView, error) {
	return s.a.offsiteView(s.a.state())
}

func (a *App) offsiteView(st *state) (OffsiteView, error) {
	cl, err := st.client()
	if err != nil {
		return OffsiteView{}, err
	}
	v := OffsiteView{Engine: st.prefs.Engine, Choice: Offsite(st.prefs.Offsite)}
	if h, err := healthOf(context.Background(), cl); err == nil {
		v.Reachable, v.Health = true, h.Backup
	}
	if v.Choice.Kind != "" {
		if v.Recovery, err = recoveryOf(st.dataDir, v.Choice); err != nil {
			return OffsiteView{}, err
		}
	}
	return v, nil
}

// recoveryOf is what to keep on paper for the copy o.
func recoveryOf(dataDir string, o Offsite) (Recovery, error) {
	r := Recovery{Place: o.place()}
	if o.Kind == OffsiteProvider {
		r.Address, r.KeyID = o.Address, o.KeyID
	}
	key, err := recoveryText(filepath.Join(dataDir, "engine"))
	if err != nil {
		return Recovery{}, err
	}
	r.Key = key
	return r, nil
}

// recoveryText is the key the engine in dir encrypts its off-site copy
// with (its one secret line), made on first use: the one the keeper ships
// with. The window words the page around it (words.ts recoveryWords).
func recoveryText(dir string) (string, error) {
	key, _, err := backup.LoadOrCreateKey(dir)
	if err != nil {
		return "", fmt.Errorf("read the off-site copy's key: %w", err)
	}
	return key.Secret(), nil
}

// ChooseOffsiteFolder asks for the folder of the off-site copy, saying d.
func (s *Settings) ChooseOffsiteFolder(d FileDialog) (string, error) {
	sh, err := s.a.getShell()
	if err != nil {
		return "", err
	}
	dir, err := sh.OpenFolder(d.clean())
	if err != nil {
		return "", fmt.Errorf("open the folder dialog: %w", err)
	}
	if dir == "" {
		return "", ErrCanceled
	}
	return dir, nil
}

// TestOffsite checks that Spark can keep the off-site copy at o, without
// setting it up: it opens the place and lists what is there.
func (s *Settings) TestOffsite(o Offsite) (OffsiteTestResult, error) {
	st := s.a.state()
	if st.dataDir == "" {
		return OffsiteTestResult{}, ErrNotReady
	}
	r, _ := testOffsite(st, clean(o))
	return r, nil
}

// SetOffsite tests o and, when the test passes, keeps the off-site copy
// of the engine on this computer there from now on; a test that fails is
// a UIError with its code, and nothing changes.
func (s *Settings) SetOffsite(o Offsite) (OffsiteView, error) {
	o = clean(o)
	if s.a.state().dataDir == "" {
		return OffsiteView{}, ErrNotReady
	}
	// The test may take seconds (a store far away): not under change's
	// lock, which every other setting waits for.
	r, t := testOffsite(s.a.state(), o)
	if !r.OK {
		return OffsiteView{}, &UIError{Code: r.Code, Name: r.Place, Detail: r.Detail}
	}
	var started backup.Target
	st, err := s.a.change(func(cur *state) (*state, error) {
		if cur.dataDir == "" {
			return nil, ErrNotReady
		}
		next := *cur
		next.prefs.Offsite = savedOffsite(o)
		if err := savePrefs(next.dataDir, next.prefs); err != nil {
			return nil, err
		}
		if next.local != nil {
			if err := next.local.SetBackup(t); err != nil {
				return nil, err
			}
			started = t
		}
		return &next, nil
	})
	if err != nil {
		return OffsiteView{}, err
	}
	if started != nil {
		s.a.log.Info("off-site copy set up", "target", started.String())
	}
	return s.a.offsiteView(st)
}

// TurnOffOffsite stops keeping the off-site copy of the engine on this
// computer. What the copy holds stays where it is.
func (s *Settings) TurnOffOffsite() (OffsiteView, error) {
	st, err := s.a.change(func(cur *state) (*state, error) {
		if cur.dataDir == "" {
			return nil, ErrNotReady
		}
		next := *cur
		next.prefs.Offsite = savedOffsite{}
		if err := savePrefs(next.dataDir, next.prefs); err != nil {
			return nil, err
		}
		if next.local != nil {
			next.local.SetBackup(nil)
		}
		return &next, nil
	})
	if err != nil {
		return OffsiteView{}, err
	}
	s.a.log.Info("off-site copy turned off")
	return s.a.offsiteView(st)
}

// clean trims what Dad typed and keeps only the fields of o's kind.
func clean(o Offsite) Offsite {
	switch o.Kind {
	case OffsiteFolder:
		return Offsite{Kind: o.Kind, Folder: strings.TrimSpace(o.Folder)}
	case OffsiteProvider:
		return Offsite{Kind: o.Kind, Address: strings.TrimRight(strings.TrimSpace(o.Address), "/"),
			Bucket: strings.Trim(strings.TrimSpace(o.Bucket), "/"), KeyID: strings.TrimSpace(o.KeyID), Secret: strings.TrimSpace(o.Secret)}
	}
	return Offsite{Kind: o.Kind}
}

// place is the copy's address for people and logs: file:///PATH or
// s3://BUCKET/PREFIX.
func (o Offsite) place() string {
	switch o.Kind {
	case OffsiteFolder:
		return backup.FileURL(o.Folder)
	case OffsiteProvider:
		return "s3://" + o.Bucket
	}
	return ""
}

// testOffsite checks o (cleaned) in st and, when Spark can keep the copy
// there, returns the target to ship to.
func testOffsite(st *state, o Offsite) (OffsiteTestResult, backup.Target) {
	r := OffsiteTestResult{Place: o.place()}
	fail := func(code, detail string) (OffsiteTestResult, backup.Target) {
		r.Code, r.Detail = code, detail
		return r, nil
	}
	if code := checkOffsite(st.dataDir, o); code != "" {
		return fail(code, "")
	}
	if o.Kind == OffsiteFolder {
		// A folder is made only where its parent is: an unplugged disk's
		// mount point is never filled on this computer's own disk.
		if _, err := os.Stat(filepath.Dir(o.Folder)); err != nil {
			return fail(OffsiteTestNoPlace, err.Error())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t, err := openOffsite(ctx, o)
	if err != nil {
		return fail(offsiteProblem(err), err.Error())
	}
	// A listing tells that the place answers and lets Spark in; the
	// manifest, whose copy it holds.
	if err := t.List(ctx, "log/", func(string, int64) error { return nil }); err != nil {
		return fail(offsiteProblem(err), err.Error())
	}
	if id, err := copyEngineID(ctx, t); err != nil {
		return fail(offsiteProblem(err), err.Error())
	} else if id != "" && st.local != nil {
		if mine, err := st.local.Engine.ID(); err == nil && mine != "" && id != mine {
			return fail(OffsiteTestOtherCopy, fmt.Sprintf("%s holds the copy of the engine %s", t, id))
		}
	}
	r.OK, r.Code = true, OffsiteTestOK
	return r, t
}

// offsiteProblem is the BackupProblem code of a failure to open or list a
// place: a folder Spark may not make or write is denied, as the keeper
// says of it.
func offsiteProblem(err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return api.BackupDenied
	}
	return backup.ProblemOf(err)
}

// checkOffsite is the OffsiteTest code of what is missing or wrong in o
// before any place is asked; "" when nothing is.
func checkOffsite(dataDir string, o Offsite) string {
	switch o.Kind {
	case OffsiteFolder:
		if o.Folder == "" || !filepath.IsAbs(o.Folder) {
			return OffsiteTestNoFolder
		}
		if fi, err := os.Stat(o.Folder); err == nil && !fi.IsDir() {
			return OffsiteTestNotFolder
		}
		if within(o.Folder, dataDir) || within(dataDir, o.Folder) {
			return OffsiteTestInsideData
		}
	case OffsiteProvider:
		u, err := url.Parse(o.Address)
		if o.Address == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return OffsiteTestNoAddress
		}
		if strings.SplitN(o.Bucket, "/", 2)[0] == "" {
			return OffsiteTestNoBucket
		}
		if o.KeyID == "" || o.Secret == "" {
			return OffsiteTestNoKeyID
		}
	default:
		return OffsiteTestNoKind
	}
	return ""
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// openOffsite opens o's place as a backup target.
func openOffsite(ctx context.Context, o Offsite) (backup.Target, error) {
	if o.Kind == OffsiteFolder {
		return &offsiteFolder{path: o.Folder}, nil
	}
	return backup.Open(ctx, "s3://"+o.Bucket, backup.Options{Endpoint: o.Address, KeyID: o.KeyID, Secret: o.Secret, Region: regionOf(o.Address)})
}

// offsiteTarget is the target of the off-site copy o, nil when none is
// set up. A place that cannot be opened (settings edited by hand) is
// logged, and the engine starts without its copy.
func (a *App) offsiteTarget(ctx context.Context, o Offsite) backup.Target {
	if o.Kind == "" {
		return nil
	}
	t, err := openOffsite(ctx, o)
	if err != nil {
		a.log.Error("off-site copy: cannot open its place; set it up again in Settings", "place", o.place(), "err", err)
		return nil
	}
	return t
}

// regionOf reads a store's region from its address, as the providers
// write it (s3.eu-central-003.backblazeb2.com, s3.eu-west-1.amazonaws.com,
// s3.us-east-2.wasabisys.com); "" when it names none.
func regionOf(address string) string {
	u, err := url.Parse(address)
	if err != nil {
		return ""
	}
	parts := strings.Split(u.Hostname(), ".")
	if len(parts) >= 4 && parts[0] == "s3" && strings.Contains(parts[1], "-") {
		return parts[1]
	}
	return ""
}

// copyEngineID is the engine id in the manifest of the copy at t, ""
// when t holds no copy (or one made before engines had ids).
func copyEngineID(ctx context.Context, t backup.Target) (string, error) {
	rc, err := t.Get(ctx, backup.ManifestName)
	if errors.Is(err, backup.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer rc.Close()
	var m backup.Manifest
	if err := json.NewDecoder(rc).Decode(&m); err != nil {
		return "", fmt.Errorf("%w: read %s in %s: %v", backup.ErrConflict, backup.ManifestName, t, err)
	}
	return m.EngineID, nil
}

// offsiteFolder is a folder target that is opened, and so made, only once
// it is there: when the disk that holds it is unplugged as Spark starts,
// each pass finds it unreachable until it is back, and the folder is
// never made on this computer's own disk in the empty mount point.
type offsiteFolder struct {
	path string

	mu sync.Mutex
	t  *backup.Folder
}

var _ backup.Target = (*offsiteFolder)(nil)

func (f *offsiteFolder) open() (*backup.Folder, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.t != nil {
		return f.t, nil
	}
	if _, err := os.Stat(f.path); err != nil {
		if _, perr := os.Stat(filepath.Dir(f.path)); perr != nil {
			return nil, fmt.Errorf("%w: the folder %s is not there (%v); plug in the disk or mount the share that holds it", backup.ErrUnreachable, f.path, err)
		}
	}
	t, err := backup.OpenFolder(f.path)
	if err != nil {
		return nil, err
	}
	f.t = t
	return t, nil
}

func (f *offsiteFolder) String() string { return backup.FileURL(f.path) }

func (f *offsiteFolder) Put(ctx context.Context, name string, body io.Reader, size int64, sum [32]byte) error {
	t, err := f.open()
	if err != nil {
		return err
	}
	return t.Put(ctx, name, body, size, sum)
}

func (f *offsiteFolder) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	t, err := f.open()
	if err != nil {
		return nil, err
	}
	return t.Get(ctx, name)
}

func (f *offsiteFolder) Stat(ctx context.Context, name string) (int64, error) {
	t, err := f.open()
	if err != nil {
		return 0, err
	}
	return t.Stat(ctx, name)
}

func (f *offsiteFolder) List(ctx context.Context, prefix string, fn func(string, int64) error) error {
	t, err := f.open()
	if err != nil {
		return err
	}
	return t.List(ctx, prefix, fn)
}
