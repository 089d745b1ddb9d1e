package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/vfs/crashfs"
)

var (
	powerCutRuns = flag.Int("powercut-runs", 40, "engine runs TestEngine_PowerCut cuts short (in chains of 10 restarts); each also checks 4 more cut points")
	powerCutSeed = flag.Uint64("powercut-seed", 0, "first seed of TestEngine_PowerCut; a failure names the seed that reproduces it")
	powerCutFsck = flag.Int("powercut-fsck-every", 5, "TestEngine_PowerCut runs fsck after every Nth restart (and after the last of each chain)")
)

// snapshotsPerRun is how many cut points of each engine run are checked
// on what the disk would hold, besides the one that stops it.
const snapshotsPerRun = 4

// TestEngine_PowerCut runs the engine on a simulated disk (crashfs) while
// clients create moments, upload their small copies, start jobs (a fan-out
// of one turn per seat, in one write) and recalls (a moment and its turn,
// in one write), and send bursts of creates at once (answered at their
// fsync, folded into the mirror behind the log), and cuts the power at a random file operation: in Open,
// in the middle of a batch, of a media commit, of a recovery's cut... At
// every cut point:
//   - the log opens without help, holds every op answered before the cut,
//     every media blob answered is whole, no fan-out is half there, and
//     the log holds nothing no client sent;
//
// and at the cut that stops each run, the engine restarts on what the disk
// kept, without help:
//   - everything answered is there, and asking again what was answered
//     since the last restart answers the same without writing (exactly
//     once);
//   - fsck passes, run beside the restarted engine (every few restarts).
//
// Per run, snapshotsPerRun more cut points are taken while the engine goes
// on (what the disk would hold had the power gone off there) and checked
// at the log's level, so that hundreds of cut points fit in seconds.
//
// Sometimes the mirror is lost too, or goes back to an older state, as a
// power cut may do to SQLite's last commits (synchronous=NORMAL); it is
// never ahead of the log, since a fold commits only after the log's fsync.
//
// The seeds are fixed; -powercut-runs=N -powercut-seed=S make a longer or
// another run, and a failure names the seed to rerun.
func TestEngine_PowerCut(t *testing.T) {
	n := *powerCutRuns
	if testing.Short() {
		n = 10
	}
	t.Setenv(pippa.EnvURL, "")
	// Seats that never answer: the turns stay running (and are asked again
	// at each restart), so the test spends its time on the clients' writes.
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client leave
		<-r.Context().Done()
	}))
	t.Cleanup(silent.Close)
	var seats []pippa.Config
	for _, name := range []string{"one", "two", "three"} {
		seats = append(seats, pippa.Config{Name: name, URL: silent.URL + "/v1", Model: "silent"})
	}
	const chain = 10
	points := 0
	var behind atomic.Int64
	for c := 0; c*chain < n; c++ {
		pc := &powerCutRun{t: t, seats: seats, seed: *powerCutSeed + uint64(c), sent: newSentSet(), behind: &behind}
		points += pc.run(min(chain, n-c*chain))
	}
	t.Logf("%d engine runs cut short, %d cut points checked, %d creates answered before their fold", n, points, behind.Load())
	if behind.Load() == 0 {
		t.Errorf("no create was answered before its fold: the bursts did not take the engine's pipeline")
	}
}

// answer is a request that was answered.
type answer struct {
	kind string // moment, media, job, recall
	key  string // the request's id (the media id for media)
	val  string // moment id; media SHA-256; job's moment id; recall's moment id
	turn string // a recall's turn id
	// round and op say when the answer came: the engine run, and the
	// count of its disk's operations.
	round, op int
}

// sentSet records what the clients sent and what they were answered.
type sentSet struct {
	mu      sync.Mutex
	sent    map[string]bool // every request tried, answered or not
	answers []answer
	fresh   int // answers[fresh:] came since the last restart
}

func newSentSet() *sentSet { return &sentSet{sent: map[string]bool{}} }

func (s *sentSet) send(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent[id] = true
}

func (s *sentSet) answered(a answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, a)
}

type powerCutRun struct {
	t     *testing.T
	seats []pippa.Config
	seed  uint64
	sent  *sentSet
	rng   *rand.Rand
	round int
	// behind counts the creates answered while the mirror's fold was
	// behind the log (answered at their fsync).
	behind *atomic.Int64
}

// run runs restarts engine runs in a chain, each on what the last one's
// power cut left, and returns the number of cut points checked.
func (pc *powerCutRun) run(restarts int) int {
	t := pc.t
	pc.rng = rand.New(rand.NewPCG(pc.seed, 7))
	base := t.TempDir()
	dir := filepath.Join(base, "disk-0")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	points := 0
	for pc.round = 0; pc.round < restarts; pc.round++ {
		disk, err := crashfs.New(dir, pc.seed*1000+uint64(pc.round))
		if err != nil {
			t.Fatal(err)
		}
		// The power goes off somewhere in the next 1 to 150 operations (a
		// create takes 2, an upload 8, the engine's Open about 10); the
		// disk is also looked at before a few operations on the way.
		start := disk.Ops()
		stop := 1 + pc.rng.IntN(150)
		disk.CrashAt(start + stop)
		for range snapshotsPerRun {
			disk.SnapshotAt(start + 1 + pc.rng.IntN(stop))
		}
		e := pc.restart(disk, dir)
		if pc.round > 0 {
			pc.check(e, dir, pc.round%*powerCutFsck == 0)
		}
		// What the power cut does to the mirror, which SQLite keeps
		// outside the simulated disk: usually nothing; sometimes it is
		// lost, or loses its last commits (goes back to how it is now).
		fate := pc.rng.IntN(6)
		var oldMirror string
		if fate == 1 && !disk.Crashed() {
			oldMirror = filepath.Join(t.TempDir(), "old-mirror.db")
			if err := snapshotMirror(context.Background(), filepath.Join(dir, MirrorFile), oldMirror); err != nil {
				t.Fatal(err)
			}
		}
		pc.load(e, disk)
		if e != nil {
			e.Close()
		}

		for i, sn := range disk.Snapshots() {
			pc.checkSnapshot(sn, dir, filepath.Join(base, fmt.Sprintf("snap-%d-%d", pc.round, i)))
			points++
		}
		next := filepath.Join(base, fmt.Sprintf("disk-%d", pc.round+1))
		if err := disk.WriteImage(next); err != nil {
			t.Fatal(err)
		}
		points++
		switch {
		case fate == 0:
			removeDB(filepath.Join(next, MirrorFile))
		case fate == 1 && oldMirror != "":
			removeDB(filepath.Join(next, MirrorFile))
			copyFile(t, oldMirror, filepath.Join(next, MirrorFile))
		}
		os.RemoveAll(dir)
		dir = next
	}
	disk, err := crashfs.New(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := pc.restart(disk, dir)
	pc.check(e, dir, true)
	e.Close()
	return points
}

// where names the run for a failure message.
func (pc *powerCutRun) where() string {
	return fmt.Sprintf("seed %d, restart %d (rerun: go test ./engine -run TestEngine_PowerCut -powercut-runs=10 -powercut-seed=%d)", pc.seed, pc.round, pc.seed)
}

// restart opens the engine on the disk, as a person restarting it after
// the power came back would, and fails the test if it does not start. A
// cut during this Open is part of the test: load then sees the engine
// refuse every write, and the next restart starts from what it left.
func (pc *powerCutRun) restart(disk *crashfs.FS, dir string) *Engine {
	t := pc.t
	e, err := Open(ctxT(t), Config{Dir: dir, FS: disk, Logger: quiet, Seats: pc.seats, Workers: 1, RetryBackoff: time.Millisecond})
	if err == nil {
		return e
	}
	if !disk.Crashed() {
		t.Fatalf("%s: the engine does not start after a power cut: %v", pc.where(), err)
	}
	// The power went off during Open: no engine this run.
	return nil
}

// load runs clients against e until the power goes off.
func (pc *powerCutRun) load(e *Engine, disk *crashfs.FS) {
	if e == nil {
		return
	}
	s := pc.sent
	var wg sync.WaitGroup
	for c := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			var moments []string
			for i := 0; !disk.Crashed(); i++ {
				tag := fmt.Sprintf("s%d-r%d-c%d-%d", pc.seed, pc.round, c, i)
				switch i % 4 {
				case 0: // a photo moment and its small copy
					copyID := mediaID(tag)
					s.send(tag)
					mo, _, err := e.CreateMoment(ctx, api.CreateMomentRequest{ClientRequestID: tag, Kind: api.KindPhoto, Caption: "caption " + tag, CopyID: copyID})
					if err != nil {
						continue
					}
					s.answered(answer{kind: "moment", key: tag, val: mo.ID, round: pc.round, op: disk.Ops()})
					moments = append(moments, mo.ID)
					s.send(copyID)
					body := bytes.Repeat([]byte(tag), 1+i%7*30)
					md, _, err := e.PutMedia(ctx, PutMedia{ID: copyID, MomentID: mo.ID, Role: api.RoleCopy, ContentType: "image/jpeg", Body: bytes.NewReader(body)})
					if err == nil {
						s.answered(answer{kind: "media", key: copyID, val: md.SHA256, round: pc.round, op: disk.Ops()})
					}
				case 1: // a job: one turn per seat, in one write
					if len(moments) == 0 {
						continue
					}
					target := moments[len(moments)-1]
					s.send(tag)
					if _, _, err := e.StartJob(ctx, target, tag); err == nil {
						s.answered(answer{kind: "job", key: tag, val: target, round: pc.round, op: disk.Ops()})
					}
				case 2: // a kept phrase, for the recalls
					e.KeepPhrase(ctx, api.KeepPhraseRequest{Text: "phrase " + tag})
				case 3: // a recall: a moment and its turn, in one write
					s.send(tag)
					mo, turn, _, err := e.StartRecall(ctx, tag)
					if err == nil {
						s.answered(answer{kind: "recall", key: tag, val: mo.ID, turn: turn.ID, round: pc.round, op: disk.Ops()})
					}
				}
			}
		}()
	}
	// Bursts of creates at once, as many phones sending their captures
	// do: the engine answers them at their fsync and folds them behind
	// the log (appendCreate), so that cuts land between answers and folds.
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx := context.Background()
		for b := 0; !disk.Crashed(); b++ {
			var burst sync.WaitGroup
			for k := range createBurst {
				burst.Add(1)
				go func() {
					defer burst.Done()
					tag := fmt.Sprintf("s%d-r%d-b%d-%d", pc.seed, pc.round, b, k)
					s.send(tag)
					mo, _, err := e.CreateMoment(ctx, api.CreateMomentRequest{ClientRequestID: tag, Kind: api.KindPhoto, Caption: "caption " + tag, CopyID: mediaID(tag)})
					if err != nil {
						return
					}
					if e.opLog().Folding() {
						pc.behind.Add(1)
					}
					s.answered(answer{kind: "moment", key: tag, val: mo.ID, round: pc.round, op: disk.Ops()})
				}()
			}
			burst.Wait()
		}
	}()
	wg.Wait()
}

// createBurst is how many creates at once the power-cut test's bursts send.
const createBurst = 8

// mediaID makes a ULID-shaped media id from a tag.
func mediaID(tag string) string {
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var b strings.Builder
	b.WriteString("01J")
	h := uint64(14695981039346656037)
	for i := range len(tag) {
		h = (h ^ uint64(tag[i])) * 1099511628211
	}
	for range 23 {
		b.WriteByte(crockford[h%32])
		h = h/32 ^ h*2654435761
	}
	return b.String()
}

// logView is what a log holds of the clients' requests.
type logView struct {
	momentOf    map[string]string   // create request id -> moment id
	mediaSHA    map[string]string   // media id -> SHA-256
	jobTurns    map[string]int      // job id -> turns
	recallParts map[string][]string // recall id -> its moment id and turn id
	clientOps   int                 // ops other than turn.finish
}

// viewLog reads l and checks that it holds only what clients sent and no
// fan-out half there.
func (pc *powerCutRun) viewLog(l *oplog.Log) (*logView, error) {
	s := pc.sent
	v := &logView{momentOf: map[string]string{}, mediaSHA: map[string]string{}, jobTurns: map[string]int{}, recallParts: map[string][]string{}}
	err := l.Scan(context.Background(), 0, func(r oplog.Record) error {
		if r.Op != api.OpTurnFinish {
			v.clientOps++
		}
		switch r.Op {
		case api.OpMomentCreate:
			var d mirror.MomentCreate
			json.Unmarshal(r.Data, &d)
			if !s.sent[r.RequestID] {
				return fmt.Errorf("seq %d: a moment.create of request %q, which nobody sent", r.Seq, r.RequestID)
			}
			if d.Recall != nil {
				v.recallParts[r.RequestID] = append(v.recallParts[r.RequestID], d.ID)
			} else {
				v.momentOf[r.RequestID] = d.ID
			}
		case api.OpMediaPut:
			var d mirror.MediaPut
			json.Unmarshal(r.Data, &d)
			if !s.sent[d.ID] {
				return fmt.Errorf("seq %d: a media.put of %s, which nobody sent", r.Seq, d.ID)
			}
			v.mediaSHA[d.ID] = d.SHA256
		case api.OpTurnStart:
			var d mirror.TurnStart
			json.Unmarshal(r.Data, &d)
			switch {
			case d.Job != "":
				v.jobTurns[d.Job]++
			case d.Recall != "":
				v.recallParts[d.Recall] = append(v.recallParts[d.Recall], d.ID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for job, n := range v.jobTurns {
		if n != len(pc.seats) {
			return nil, fmt.Errorf("job %s has %d of its %d turns", job, n, len(pc.seats))
		}
	}
	for rid, parts := range v.recallParts {
		if len(parts) != 2 {
			return nil, fmt.Errorf("recall %s is half there: %v", rid, parts)
		}
	}
	return v, nil
}

// holds checks that the log holds answer a.
func (v *logView) holds(a answer, seats int) error {
	switch a.kind {
	case "moment":
		if v.momentOf[a.key] != a.val {
			return fmt.Errorf("create %s was answered (moment %s) but the log has %q", a.key, a.val, v.momentOf[a.key])
		}
	case "media":
		if v.mediaSHA[a.key] != a.val {
			return fmt.Errorf("media %s was answered (SHA-256 %s) but the log has %q", a.key, a.val, v.mediaSHA[a.key])
		}
	case "job":
		if v.jobTurns[a.key] != seats {
			return fmt.Errorf("job %s was answered but the log has %d of its turns", a.key, v.jobTurns[a.key])
		}
	case "recall":
		if p := v.recallParts[a.key]; len(p) != 2 || p[0] != a.val || p[1] != a.turn {
			return fmt.Errorf("recall %s was answered (%s, %s) but the log has %v", a.key, a.val, a.turn, p)
		}
	}
	return nil
}

// checkSnapshot checks what the disk would have held had the power gone
// off before operation sn.Op: the log opens without help (cutting what a
// write cut short left, with no mirror to say what was acknowledged),
// holds every answer given before it, and every media blob answered is
// whole.
func (pc *powerCutRun) checkSnapshot(sn *crashfs.Snapshot, disk, dir string) {
	t := pc.t
	t.Helper()
	where := fmt.Sprintf("%s, cut point before operation %d", pc.where(), sn.Op)
	s := pc.sent
	s.mu.Lock()
	defer s.mu.Unlock()
	var before []answer
	for _, a := range s.answers {
		if a.round < pc.round || a.op < sn.Op {
			before = append(before, a)
		}
	}
	// Only the log is written out, to open it; the blobs are read from
	// the snapshot.
	logBytes, ok, err := sn.ReadFile(filepath.Join(disk, LogFile), disk)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		if len(before) > 0 {
			t.Fatalf("%s: no log, with %d answers given", where, len(before))
		}
		return
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, LogFile), logBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := oplog.Open(filepath.Join(dir, LogFile), oplog.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("%s: the log does not open: %v", where, err)
	}
	defer l.Close()
	v, err := pc.viewLog(l)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	for _, a := range before {
		if err := v.holds(a, len(pc.seats)); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if a.kind == "media" {
			b, ok, err := sn.ReadFile(filepath.Join(disk, MediaDir, "sha256", a.val[:2], a.val[2:4], a.val), disk)
			sum := sha256.Sum256(b)
			if !ok || err != nil || hex.EncodeToString(sum[:]) != a.val {
				t.Fatalf("%s: media %s was answered but its blob is not whole (there: %v, %v)", where, a.key, ok, err)
			}
		}
	}
}

// check checks a restarted engine against what was sent and answered:
// everything answered is in the log, and what was answered since the last
// restart, asked again, gets the same answer with nothing written.
func (pc *powerCutRun) check(e *Engine, dir string, fsck bool) {
	t := pc.t
	t.Helper()
	if e == nil {
		return
	}
	ctx := ctxT(t)
	s := pc.sent
	where := pc.where()
	s.mu.Lock()
	v, err := pc.viewLog(e.log)
	if err != nil {
		s.mu.Unlock()
		t.Fatalf("%s: %v", where, err)
	}
	for _, a := range s.answers {
		if err := v.holds(a, len(pc.seats)); err != nil {
			s.mu.Unlock()
			t.Fatalf("%s: %v", where, err)
		}
	}
	fresh := slices.Clone(s.answers[s.fresh:])
	s.fresh = len(s.answers)
	s.mu.Unlock()

	for _, a := range fresh {
		var err error
		switch a.kind {
		case "moment":
			mo, created, cerr := e.CreateMoment(ctx, api.CreateMomentRequest{ClientRequestID: a.key, Kind: api.KindPhoto, Caption: "caption " + a.key, CopyID: mediaID(a.key)})
			if cerr != nil || created || mo.ID != a.val {
				err = fmt.Errorf("gives %+v, created %v, %v", mo, created, cerr)
			}
		case "media":
			md, f, merr := e.OpenMedia(ctx, a.key)
			if merr == nil {
				f.Close()
			}
			if merr != nil || md.SHA256 != a.val {
				err = fmt.Errorf("gives %+v, %v", md, merr)
			}
		case "job":
			turns, created, jerr := e.StartJob(ctx, a.val, a.key)
			if jerr != nil || created || len(turns) != len(pc.seats) {
				err = fmt.Errorf("gives %d turns, created %v, %v", len(turns), created, jerr)
			}
		case "recall":
			mo, turn, created, rerr := e.StartRecall(ctx, a.key)
			if rerr != nil || created || mo.ID != a.val || turn.ID != a.turn {
				err = fmt.Errorf("gives %v, %v, created %v, %v", mo, turn, created, rerr)
			}
		}
		if err != nil {
			t.Fatalf("%s: %s %s was answered, but asking again %v", where, a.kind, a.key, err)
		}
	}
	after := 0
	for op, c := range opCounts(t, e) {
		if op != api.OpTurnFinish {
			after += c
		}
	}
	if after != v.clientOps {
		t.Fatalf("%s: asking again what was answered wrote %d ops", where, after-v.clientOps)
	}

	if fsck {
		var out bytes.Buffer
		ok, err := Fsck(ctx, dir, &out)
		if err != nil || !ok {
			t.Fatalf("%s: fsck after the restart: %v\n%s", where, err, out.String())
		}
	}
	if testing.Verbose() {
		cut := ""
		if c := e.log.Cut(); c != nil {
			cut = fmt.Sprintf(", cut %d bytes at %d (%s)", c.Bytes, c.Offset, c.Reason)
		}
		t.Logf("%s: %d ops, %d answers%s", where, e.log.LastSeq(), len(s.answers), cut)
	}
}
