package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/host"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// enginePhaseChild is the child the engine benchmark runs per
// measurement, so that each one starts from a fresh heap and its peak RSS
// (VmHWM) is its own.
const enginePhaseChild = "_engine-phase"

// phaseResult is what a phase prints, as JSON, for the parent.
type phaseResult struct {
	Count   int64         `json:"count"`
	Elapsed time.Duration `json:"elapsed"`
	P50     time.Duration `json:"p50,omitempty"`
	P99     time.Duration `json:"p99,omitempty"`
	Bytes   int64         `json:"bytes,omitempty"`
	Batches int64         `json:"batches,omitempty"` // log fsync batches during the run
	PeakRSS int64         `json:"peak_rss"`
}

func (r phaseResult) rate() float64 { return float64(r.Count) / r.Elapsed.Seconds() }
func (r phaseResult) mbps() float64 { return float64(r.Bytes) / 1e6 / r.Elapsed.Seconds() }

// throughput is what a run is ranked by: bytes/s for an upload, else ops/s.
func (r phaseResult) throughput() float64 {
	if r.Bytes > 0 {
		return r.mbps()
	}
	return r.rate()
}

type phaseArgs struct {
	dir      string
	duration time.Duration
	clients  int
	ops      int
	mb       int
	// least: the creates (and the floors' bodies) are the least a create
	// can be, a note with no caption and no client request id, whose fold
	// writes one row: the moment's, with no search entry and no request
	// memory.
	least bool
}

var phases = map[string]func(context.Context, phaseArgs) (phaseResult, error){
	"fsync":        phaseFsync,
	"bare-json":    phaseBareJSON,
	"bare-durable": phaseBareDurable,
	"creates":      phaseCreates,
	"rebuild-prep": phaseRebuildPrep,
	"rebuild":      phaseRebuild,
	"bulk-insert":  phaseBulkInsert,
	"media":        phaseMedia,
	"bare-media":   phaseBareMedia,
	"disk-write":   phaseDiskWrite,
}

// childEnginePhase runs the phase args[0] with the flags that follow and
// returns what it measured, with this process's peak RSS.
func childEnginePhase(ctx context.Context, args []string) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%s needs a phase name", enginePhaseChild)
	}
	fn, ok := phases[args[0]]
	if !ok {
		return nil, fmt.Errorf("unknown bench phase %q", args[0])
	}
	fs := flag.NewFlagSet(enginePhaseChild, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var a phaseArgs
	fs.StringVar(&a.dir, "dir", "", "")
	fs.DurationVar(&a.duration, "duration", time.Second, "")
	fs.IntVar(&a.clients, "clients", 1, "")
	fs.IntVar(&a.ops, "ops", 0, "")
	fs.IntVar(&a.mb, "mb", 0, "")
	fs.BoolVar(&a.least, "least", false, "")
	// A CPU profile of the phase, for finding where a figure's time goes:
	// spark-bench _engine-phase creates --dir D --clients 32 --cpuprofile F
	cpuProfile := fs.String("cpuprofile", "", "")
	if err := fs.Parse(args[1:]); err != nil {
		return nil, fmt.Errorf("bench phase %s: %w", args[0], err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("bench phase %s takes no arguments, got %q", args[0], fs.Args())
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("bench phase %s: %w", args[0], err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("bench phase %s: %w", args[0], err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := fn(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("bench phase %s: %w", args[0], err)
	}
	res.PeakRSS, _ = benchkit.PeakRSS() // 0 where there is no /proc
	return res, nil
}

// phaseFsync appends one small record and fsyncs it, over and over, in the
// bench directory: the floor under every create.
func phaseFsync(ctx context.Context, a phaseArgs) (phaseResult, error) {
	path := filepath.Join(a.dir, "fsync.dat")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return phaseResult{}, err
	}
	defer os.Remove(path)
	defer f.Close()
	rec := make([]byte, 128)
	var n int64
	start := time.Now()
	for time.Since(start) < a.duration && ctx.Err() == nil {
		if _, err := f.Write(rec); err != nil {
			return phaseResult{}, err
		}
		if err := f.Sync(); err != nil {
			return phaseResult{}, err
		}
		n++
	}
	return phaseResult{Count: n, Elapsed: time.Since(start)}, nil
}

// phaseBareJSON serves a bare net/http handler that decodes a create's JSON
// and answers a moment's, with nothing behind it: the ceiling of a JSON
// route over loopback.
func phaseBareJSON(ctx context.Context, a phaseArgs) (phaseResult, error) {
	return serveBareCreates(ctx, a, func(api.CreateMomentRequest) error { return nil })
}

// phaseBareDurable serves a bare handler that decodes a create's JSON,
// appends it to a file and answers the moment's JSON once the file is
// fsync'ed, the appends of the requests that arrive meanwhile sharing one
// fsync (a group commit, as the log's): the floor of any create that is
// durable before its answer over HTTP, with nothing else behind it: no
// checks, no log format, no mirror.
func phaseBareDurable(ctx context.Context, a phaseArgs) (phaseResult, error) {
	path := filepath.Join(a.dir, "bare-durable.dat")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return phaseResult{}, err
	}
	defer os.Remove(path)
	defer f.Close()
	g := newGroupFile(f)
	defer g.close()
	return serveBareCreates(ctx, a, func(req api.CreateMomentRequest) error {
		line, err := json.Marshal(req)
		if err != nil {
			return err
		}
		return g.append(append(line, '\n'))
	})
}

// serveBareCreates serves a bare net/http handler that decodes a create's
// JSON, gives it to keep and answers a moment's JSON, and runs the creates'
// load against it.
func serveBareCreates(ctx context.Context, a phaseArgs, keep func(api.CreateMomentRequest) error) (phaseResult, error) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req api.CreateMomentRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, api.MaxJSONBody)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := keep(req); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		created := true
		now := time.Now().UTC()
		m := api.Moment{ID: req.ID, Kind: req.Kind, Caption: req.Caption, CreatedAt: now, UpdatedAt: now, Turns: []api.Turn{}}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(api.MomentResponse{Moment: &m, Created: &created})
	})
	url, stop, err := serveLoopback(h)
	if err != nil {
		return phaseResult{}, err
	}
	defer stop()
	return createLoad(ctx, url+"/v1/moments", "", a)
}

// groupFile appends to a file and fsyncs it, the appends made while one
// fsync runs sharing the next.
type groupFile struct {
	f    *os.File
	kick chan struct{}
	done chan struct{}

	mu    sync.Mutex
	buf   []byte
	batch *groupBatch // the batch buf's appends belong to
}

type groupBatch struct {
	synced chan struct{}
	err    error
}

func newGroupFile(f *os.File) *groupFile {
	g := &groupFile{f: f, kick: make(chan struct{}, 1), done: make(chan struct{}), batch: &groupBatch{synced: make(chan struct{})}}
	go g.loop()
	return g
}

// append adds b to the file and returns once it is fsync'ed.
func (g *groupFile) append(b []byte) error {
	g.mu.Lock()
	g.buf = append(g.buf, b...)
	batch := g.batch
	g.mu.Unlock()
	select {
	case g.kick <- struct{}{}:
	default:
	}
	<-batch.synced
	return batch.err
}

func (g *groupFile) loop() {
	defer close(g.done)
	var spare []byte
	for range g.kick {
		g.mu.Lock()
		buf, batch := g.buf, g.batch
		g.buf, g.batch = spare[:0], &groupBatch{synced: make(chan struct{})}
		g.mu.Unlock()
		if len(buf) > 0 {
			_, batch.err = g.f.Write(buf)
			if batch.err == nil {
				batch.err = g.f.Sync()
			}
		}
		close(batch.synced)
		spare = buf
	}
}

func (g *groupFile) close() {
	close(g.kick)
	<-g.done
}

// phaseCreates runs the real engine behind the real server and creates
// moments over loopback HTTP, each fsync'ed before its answer.
func phaseCreates(ctx context.Context, a phaseArgs) (phaseResult, error) {
	var batches atomic.Int64
	eng, url, token, stop, err := startBenchEngine(ctx, a.dir, 0, func(int, time.Duration) { batches.Add(1) })
	if err != nil {
		return phaseResult{}, err
	}
	defer stop()
	before := batches.Load()
	res, err := createLoad(ctx, url+"/v1/moments", token, a)
	if err != nil {
		return res, err
	}
	res.Batches = batches.Load() - before
	// Every answered create must be in the log, or the figure means nothing.
	if h := eng.Health(ctx); h.Seq < uint64(res.Count) {
		return res, fmt.Errorf("the log has %d ops after %d answered creates", h.Seq, res.Count)
	}
	return res, nil
}

func createLoad(ctx context.Context, url, token string, a phaseArgs) (phaseResult, error) {
	hc := benchClient(a.clients)
	defer hc.CloseIdleConnections()
	next := func(w, i int) (*http.Request, error) {
		body := fmt.Sprintf(`{"id":%q,"client_request_id":"bench-%d-%d","kind":"note","caption":"a moment of the bench, number %d"}`, ulid.Make().String(), w, i, i)
		if a.least {
			body = fmt.Sprintf(`{"id":%q,"kind":"note","caption":""}`, ulid.Make().String())
		}
		return jsonPost(url, token, []byte(body))
	}
	l, err := runLoad(ctx, hc, a.clients, a.duration, http.StatusCreated, next)
	if err != nil {
		return phaseResult{}, err
	}
	return phaseResult{Count: int64(l.Count), Elapsed: l.Elapsed, P50: l.P50, P99: l.P99}, nil
}

// startBenchEngine opens a real engine in dir, serves it on loopback and
// returns its URL and a fresh token.
func startBenchEngine(ctx context.Context, dir string, maxMedia int64, onBatch func(int, time.Duration)) (*engine.Engine, string, string, func(), error) {
	se, err := host.Start(ctx, host.Config{
		Engine: engine.Config{Dir: dir, Logger: slog.New(slog.DiscardHandler), MaxMediaSize: maxMedia, OnBatch: onBatch},
		Addr:   "127.0.0.1:0",
		Grace:  10 * time.Second,
	})
	if err != nil {
		return nil, "", "", nil, err
	}
	token, err := se.Engine.Tokens().Add("bench", auth.ScopeAdmin)
	if err != nil {
		se.Close()
		return nil, "", "", nil, err
	}
	return se.Engine, se.URL, token, func() { se.Close() }, nil
}

// serveLoopback serves h on 127.0.0.1 at a free port.
func serveLoopback(h http.Handler) (string, func(), error) {
	s, err := host.Serve("127.0.0.1:0", h, nil, 10*time.Second)
	if err != nil {
		return "", nil, err
	}
	return s.URL, func() { s.Close() }, nil
}

// benchMoment is the n-th moment of the rebuild log, the same in the log
// and in the bare bulk insert.
func benchMoment(n int) (mirror.MomentCreate, string, time.Time) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Millisecond)
	var entropy [10]byte
	entropy[6], entropy[7], entropy[8], entropy[9] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	id := ulid.ULID{}
	id.SetTime(ulid.Timestamp(at))
	id.SetEntropy(entropy[:])
	m := mirror.MomentCreate{ID: id.String(), Kind: api.KindNote, Caption: fmt.Sprintf("moment %d of the rebuild bench, a caption of ordinary length", n)}
	return m, fmt.Sprintf("bench-rebuild-%d", n), at
}

// phaseRebuildPrep writes a log of a.ops moment.create ops for the rebuild
// phase to fold.
func phaseRebuildPrep(ctx context.Context, a phaseArgs) (phaseResult, error) {
	l, err := oplog.Open(filepath.Join(a.dir, engine.LogFile), oplog.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return phaseResult{}, err
	}
	start := time.Now()
	const chunk = 10000
	recs := make([]oplog.Record, 0, chunk)
	for n := 0; n < a.ops; n++ {
		m, rid, at := benchMoment(n)
		data, err := json.Marshal(m)
		if err != nil {
			l.Close()
			return phaseResult{}, err
		}
		recs = append(recs, oplog.Record{At: at, Op: api.OpMomentCreate, RequestID: rid, Data: data})
		if len(recs) == chunk || n == a.ops-1 {
			if _, err := l.Append(ctx, recs...); err != nil {
				l.Close()
				return phaseResult{}, err
			}
			recs = recs[:0]
		}
	}
	if err := l.Close(); err != nil {
		return phaseResult{}, err
	}
	return phaseResult{Count: int64(a.ops), Elapsed: time.Since(start)}, nil
}

// phaseRebuild folds the prepared log into a fresh mirror.
func phaseRebuild(ctx context.Context, a phaseArgs) (phaseResult, error) {
	start := time.Now()
	if err := engine.Rebuild(ctx, a.dir, slog.New(slog.DiscardHandler)); err != nil {
		return phaseResult{}, err
	}
	return phaseResult{Count: int64(a.ops), Elapsed: time.Since(start)}, nil
}

// phaseBulkInsert inserts the rows the rebuild's fold makes (a moment and
// its request memory per op) straight into a fresh mirror's schema, with
// the same pragmas and one transaction per 10,000 ops: the ceiling for the
// fold.
func phaseBulkInsert(ctx context.Context, a phaseArgs) (phaseResult, error) {
	path := filepath.Join(a.dir, "bulk.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	m, err := mirror.Open(ctx, path, mirror.Options{Bulk: true})
	if err != nil {
		return phaseResult{}, err
	}
	if err := m.Close(); err != nil {
		return phaseResult{}, err
	}
	db, err := sql.Open("sqlite", sqlitedb.DSN(path, url.Values{"_txlock": {"immediate"},
		"_pragma": {"journal_mode(WAL)", "synchronous(OFF)", "foreign_keys(1)"}}))
	if err != nil {
		return phaseResult{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	start := time.Now()
	const chunk = 10000
	for lo := 0; lo < a.ops; lo += chunk {
		if err := bulkChunk(ctx, db, lo, min(lo+chunk, a.ops)); err != nil {
			return phaseResult{}, err
		}
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return phaseResult{}, err
	}
	return phaseResult{Count: int64(a.ops), Elapsed: time.Since(start)}, nil
}

func bulkChunk(ctx context.Context, db *sql.DB, lo, hi int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO moments (id, kind, caption, taken_at, created_at, updated_at, deleted_at, copy_id, original_id, request_id, seq) VALUES (?, ?, ?, NULL, ?, ?, NULL, NULL, NULL, ?, ?)`)
	if err != nil {
		return err
	}
	req, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO requests (id, kind, moment_id, turn_id, seq) VALUES (?, 'moment', ?, '', ?)`)
	if err != nil {
		return err
	}
	for n := lo; n < hi; n++ {
		m, rid, at := benchMoment(n)
		seq := n + 1
		if _, err := ins.ExecContext(ctx, m.ID, m.Kind, m.Caption, at.UnixNano(), at.UnixNano(), rid, seq); err != nil {
			return err
		}
		if _, err := req.ExecContext(ctx, rid, m.ID, seq); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE meta SET value = ? WHERE key = 'last_seq'", hi); err != nil {
		return err
	}
	return tx.Commit()
}

// mediaBlock is the repeated content of the media uploads. crypto/rand's
// Read does not fail (Go 1.24 and later).
func mediaBlock() []byte {
	b := make([]byte, 1<<20)
	rand.Read(b)
	return b
}

// mediaDigest is the SHA-256 of the a.mb MB upload, computed before the
// clock starts, so that the upload carries a Content-Digest as clients do.
func mediaDigest(block []byte, size int64) []byte {
	h := sha256.New()
	io.Copy(h, &repeatReader{block: block, left: size})
	return h.Sum(nil)
}

// phaseMedia PUTs a.mb MB to the real engine over loopback.
func phaseMedia(ctx context.Context, a phaseArgs) (phaseResult, error) {
	size := int64(a.mb) << 20
	_, url, token, stop, err := startBenchEngine(ctx, a.dir, size+1, nil)
	if err != nil {
		return phaseResult{}, err
	}
	defer stop()
	block := mediaBlock()
	digest := mediaDigest(block, size)
	hc := benchClient(1)
	momentID := ulid.Make().String()
	req, err := jsonPost(url+"/v1/moments", token, []byte(fmt.Sprintf(`{"id":%q,"kind":"photo"}`, momentID)))
	if err != nil {
		return phaseResult{}, err
	}
	if err := expect(hc, req, http.StatusCreated); err != nil {
		return phaseResult{}, err
	}
	return timedPut(ctx, hc, url+"/v1/media/"+ulid.Make().String()+"?moment="+momentID+"&role=original", block, size, http.Header{
		"Authorization":  {"Bearer " + token},
		"Content-Type":   {"image/jpeg"},
		"Content-Digest": {"sha-256=:" + base64.StdEncoding.EncodeToString(digest) + ":"},
	})
}

// timedPut PUTs size bytes (block repeated) to url with header and times
// the upload until its 201.
func timedPut(ctx context.Context, hc *http.Client, url string, block []byte, size int64, header http.Header) (phaseResult, error) {
	put, err := http.NewRequestWithContext(ctx, http.MethodPut, url, &repeatReader{block: block, left: size})
	if err != nil {
		return phaseResult{}, err
	}
	put.ContentLength = size
	for k, v := range header {
		put.Header[k] = v
	}
	start := time.Now()
	if err := expect(hc, put, http.StatusCreated); err != nil {
		return phaseResult{}, err
	}
	return phaseResult{Count: 1, Bytes: size, Elapsed: time.Since(start)}, nil
}

// phaseBareMedia PUTs a.mb MB to a bare handler that only hashes the stream.
func phaseBareMedia(ctx context.Context, a phaseArgs) (phaseResult, error) {
	size := int64(a.mb) << 20
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.New()
		n, err := io.Copy(sum, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"sha256":%q,"size":%d}`, hex.EncodeToString(sum.Sum(nil)), n)
	})
	url, stop, err := serveLoopback(h)
	if err != nil {
		return phaseResult{}, err
	}
	defer stop()
	block := mediaBlock()
	return timedPut(ctx, benchClient(1), url+"/upload", block, size, nil)
}

// phaseDiskWrite writes a.mb MB to a file and fsyncs it: what the disk
// allows any upload that must be durable before its answer.
func phaseDiskWrite(ctx context.Context, a phaseArgs) (phaseResult, error) {
	size := int64(a.mb) << 20
	block := mediaBlock()
	path := filepath.Join(a.dir, "disk-write.dat")
	defer os.Remove(path)
	start := time.Now()
	f, err := os.Create(path)
	if err != nil {
		return phaseResult{}, err
	}
	defer f.Close()
	if _, err := io.CopyBuffer(f, &repeatReader{block: block, left: size}, make([]byte, 256<<10)); err != nil {
		return phaseResult{}, err
	}
	if err := f.Sync(); err != nil {
		return phaseResult{}, err
	}
	return phaseResult{Count: 1, Bytes: size, Elapsed: time.Since(start)}, nil
}

// expect sends req and checks the answer's status.
func expect(hc *http.Client, req *http.Request, status int) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != status {
		return fmt.Errorf("%s %s: status %d, want %d: %s", req.Method, req.URL.Path, resp.StatusCode, status, body)
	}
	return nil
}
