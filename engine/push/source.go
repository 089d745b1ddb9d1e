package push

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/retry"
)

// Source is the engine a corpus is read from: an engine folder (Folder) or
// an engine reached through the wire contract (Remote). A push reads it
// only; nothing is ever written to it.
type Source interface {
	// Describe names the source engine (the checkpoint is keyed by it)
	// and tells its log's last seq now.
	Describe(ctx context.Context) (id string, lastSeq uint64, err error)
	// Scan calls fn with every op after seq, in log order, through
	// lastSeq at least; an error of fn stops it and is returned.
	Scan(ctx context.Context, after uint64, fn func(oplog.Record) error) error
	// Media opens the bytes of the file a media.put op names. They are
	// checked against the op's SHA-256 and size as they are read: a
	// reader that does not match fails its last Read.
	Media(ctx context.Context, m mirror.MediaPut) (io.ReadCloser, error)
	// Purged says whether the source removed moment id for good
	// (moment.purge): a push leaves it out (purged.go).
	Purged(ctx context.Context, id string) (bool, error)
	// Close lets go of what the source holds open.
	Close() error
}

// Folder is an engine folder as a Source: its log read through a
// read-only open, as fsck does, so it is read beside an app or engine that
// has the folder open.
type Folder struct {
	dir   string
	log   *oplog.Log
	store *media.Store

	purgedOnce sync.Once
	purged     map[string]bool
	purgedErr  error
}

// OpenFolder opens the engine folder dir (it holds ops.log and media/)
// for reading.
func OpenFolder(dir string) (*Folder, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	l, err := oplog.Open(filepath.Join(dir, engine.LogFile), oplog.Options{Logger: quiet, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("push: read the log of %s: %w", dir, err)
	}
	st, err := media.OpenWith(filepath.Join(dir, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("push: open the media of %s: %w", dir, err)
	}
	return &Folder{dir: dir, log: l, store: st}, nil
}

// Describe implements Source.
func (f *Folder) Describe(ctx context.Context) (string, uint64, error) {
	id, err := sourceID(ctx, f.dir, f.log)
	return id, f.log.LastSeq(), err
}

// Scan implements Source.
func (f *Folder) Scan(ctx context.Context, after uint64, fn func(oplog.Record) error) error {
	return f.log.Scan(ctx, after, fn)
}

// Media implements Source.
func (f *Folder) Media(_ context.Context, m mirror.MediaPut) (io.ReadCloser, error) {
	fl, err := f.store.Open(m.SHA256)
	if err != nil {
		return nil, fmt.Errorf("push: the source's %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	// The target checks the bytes against the Content-Digest sent.
	return fl, nil
}

// Purged implements Source: the moments its log purges, read once (the
// log of a folder is read at disk speed, and its purges are few).
func (f *Folder) Purged(ctx context.Context, id string) (bool, error) {
	f.purgedOnce.Do(func() { f.purged, f.purgedErr = purgedIn(ctx, f.log) })
	return f.purged[id], f.purgedErr
}

// Close implements Source.
func (f *Folder) Close() error { return f.log.Close() }

// RemoteSource is an engine reached through the wire contract as a Source:
// its log read page by page (GET /v1/ops), its media by id (GET
// /v1/media/{id}), its id from GET /v1/health. Passing trouble (a lost
// reply, 5xx, 429) is asked again a few times before it stops the push;
// a request that moves no byte for Options.StallAfter stops it at once.
type RemoteSource struct {
	c       *client.Client
	backoff retry.Backoff
	lim     limits
	last    uint64
}

// Remote reads the engine c reaches; backoff paces its retries (zero is
// 50 ms to 2 s).
func Remote(c *client.Client, backoff retry.Backoff) *RemoteSource {
	if backoff.Base == 0 {
		backoff = retry.Backoff{Base: 50 * time.Millisecond, Cap: 2 * time.Second}
	}
	return &RemoteSource{c: c, backoff: backoff,
		lim: limits{peer: peerName(sourceEngine, c), stallAfter: DefaultStallAfter, giveUpAfter: DefaultGiveUpAfter}}
}

// bounded is a Source whose requests Run bounds by its Options.
type bounded interface {
	bound(stallAfter, giveUpAfter time.Duration)
}

var _ bounded = (*RemoteSource)(nil)

func (s *RemoteSource) bound(stallAfter, giveUpAfter time.Duration) {
	s.lim.stallAfter, s.lim.giveUpAfter = stallAfter, giveUpAfter
}

// remoteTries bounds how often one read of the source engine is asked.
const remoteTries = 8

// opsPage is how many ops one page of the source's log asks for.
const opsPage = 500

// sourceError is the source engine's final word, so that a push never
// takes it for the target's (a token the source refuses is not the
// target's): it does not unwrap to the *api.Error it carries.
type sourceError struct{ err error }

func (e *sourceError) Error() string {
	return "the engine the moments come from: " + e.err.Error()
}

// ask runs try through passing trouble (retrying); a final failure is
// the source's.
func (s *RemoteSource) ask(ctx context.Context, try func(context.Context) error) error {
	return s.final(ctx, retrying(ctx, s.backoff, s.lim, remoteTries, nil, try))
}

// final marks err, a request's last, as the source's. A peerError names
// the source already.
func (s *RemoteSource) final(ctx context.Context, err error) error {
	var pe *peerError
	if err != nil && ctx.Err() == nil && !errors.As(err, &pe) {
		return &sourceError{err}
	}
	return err
}

// Describe implements Source: the engine id its health tells, or, from an
// engine too old to tell one, a name made of its log's first op.
func (s *RemoteSource) Describe(ctx context.Context) (string, uint64, error) {
	var h *api.Health
	err := s.ask(ctx, func(ctx context.Context) (err error) {
		if h, err = s.c.Health(ctx); err == nil {
			err = s.c.CheckToken(ctx, h.Seq)
		}
		return err
	})
	if err != nil {
		return "", 0, fmt.Errorf("push: %w", err)
	}
	s.last = h.Seq
	if h.EngineID != "" {
		return h.EngineID, h.Seq, nil
	}
	var first []api.Op
	if err := s.ask(ctx, func(ctx context.Context) (err error) { first, _, err = s.c.Ops(ctx, 0, 1); return err }); err != nil {
		return "", 0, fmt.Errorf("push: %w", err)
	}
	sum := sha256.New()
	for _, op := range first {
		fmt.Fprintf(sum, "%d %s %s %s ", op.Seq, op.At.UTC().Format(time.RFC3339Nano), op.Op, op.ClientRequestID)
		sum.Write(op.Data)
	}
	return "log-" + hex.EncodeToString(sum.Sum(nil))[:26], h.Seq, nil
}

// Scan implements Source, through the seq Describe told (ops written
// since are the next run's). Each op is checked as the engine would
// (mirror.CheckRecord): one it would refuse stops the scan before it is
// sent.
func (s *RemoteSource) Scan(ctx context.Context, after uint64, fn func(oplog.Record) error) error {
	for after < s.last {
		var (
			ops  []api.Op
			next *uint64
		)
		if err := s.ask(ctx, func(ctx context.Context) (err error) { ops, next, err = s.c.Ops(ctx, after, opsPage); return err }); err != nil {
			return fmt.Errorf("push: read the log after seq %d: %w", after, err)
		}
		for _, op := range ops {
			if op.Seq != after+1 {
				return &sourceError{fmt.Errorf("its log jumps from seq %d to %d", after, op.Seq)}
			}
			if op.Seq > s.last {
				return nil
			}
			r := oplog.Record{Seq: op.Seq, At: op.At, Op: op.Op, RequestID: op.ClientRequestID, Author: op.Author, Member: op.Member, Data: op.Data}
			if err := mirror.CheckRecord(r); err != nil {
				return fmt.Errorf("the engine the moments come from: %w; the push stops before it", err)
			}
			if err := fn(r); err != nil {
				return err
			}
			after = op.Seq
		}
		if next == nil || len(ops) == 0 {
			if after < s.last {
				return &sourceError{fmt.Errorf("its log ends at seq %d, before the %d it told", after, s.last)}
			}
			return nil
		}
	}
	return nil
}

// Media implements Source. The answer's body is read under the watch of
// its request: a Read that waits StallAfter for a byte fails with
// ErrStalled.
func (s *RemoteSource) Media(ctx context.Context, m mirror.MediaPut) (io.ReadCloser, error) {
	wctx, w := watching(ctx, s.lim)
	var rc io.ReadCloser
	err := retryingWith(ctx, wctx, w, s.backoff, s.lim, remoteTries, nil, func(ctx context.Context) (err error) {
		rc, err = s.c.GetMedia(ctx, m.ID)
		return err
	})
	if err != nil {
		w.stop()
		return nil, fmt.Errorf("push: the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, s.final(ctx, err))
	}
	return checked(&watchedBody{rc: rc, w: w}, m), nil
}

// watchedBody is a media answer's body read under its request's watch.
type watchedBody struct {
	rc io.ReadCloser
	w  *watch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.w.begin()
	n, err := b.rc.Read(p)
	b.w.end()
	if err != nil && err != io.EOF {
		if stalled := b.w.err(); stalled != nil {
			err = stalled
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.rc.Close()
	b.w.stop()
	return err
}

// Purged implements Source: the engine answers moment_purged for a
// moment it removed for good.
func (s *RemoteSource) Purged(ctx context.Context, id string) (bool, error) {
	// The engine's answer is read inside the request: ask marks a final
	// failure as the source's, which no *api.Error is taken for.
	var code string
	err := s.ask(ctx, func(ctx context.Context) error {
		_, err := s.c.Moment(ctx, id)
		if ae, ok := api.AsError(err); ok && !retry.Passing(ae.Status) {
			code = ae.Code
			return nil
		}
		return err
	})
	if err != nil {
		return false, err
	}
	// Any answer but moment_purged (the moment, 404): the ops that follow
	// tell the rest.
	return code == api.CodeMomentPurged, nil
}

// Close implements Source.
func (s *RemoteSource) Close() error { return nil }

// errDamaged is the last Read of media bytes that do not match their op.
var errDamaged = errors.New("the bytes read do not match the SHA-256 and size the log records")

// checked wraps media bytes so that their last Read fails unless they
// match the op's SHA-256 and size: damaged bytes are never sent as good.
func checked(rc io.ReadCloser, m mirror.MediaPut) io.ReadCloser {
	return &checkReader{rc: rc, h: sha256.New(), m: m}
}

type checkReader struct {
	rc  io.ReadCloser
	h   hash.Hash
	n   int64
	m   mirror.MediaPut
	bad error
}

func (c *checkReader) Read(b []byte) (int, error) {
	if c.bad != nil {
		return 0, c.bad
	}
	n, err := c.rc.Read(b)
	if errors.Is(err, ErrStalled) {
		c.bad = err
		return n, err
	}
	c.h.Write(b[:n])
	c.n += int64(n)
	if c.n > c.m.Size || (errors.Is(err, io.EOF) && (c.n != c.m.Size || hex.EncodeToString(c.h.Sum(nil)) != c.m.SHA256)) {
		c.bad = &sourceError{fmt.Errorf("media %s: %w", c.m.ID, errDamaged)}
		return n, c.bad
	}
	return n, err
}

// Damaged tells why the bytes read so far are not the op's (they do not
// match it, or the source stalled), or nil: the upload they went into
// failed for that reason, not the network's.
func (c *checkReader) Damaged() error { return c.bad }

func (c *checkReader) Close() error { return c.rc.Close() }
