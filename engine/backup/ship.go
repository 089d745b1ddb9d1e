package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// DefaultSegmentBytes is the size past which a segment is closed at the
// next end of a group.
const DefaultSegmentBytes = 4 << 20

// DefaultInterval is how long Run waits between two passes.
const DefaultInterval = 10 * time.Second

// Shipper ships an engine folder to a Target: the photos first, then the
// log segments that name them. It only reads the folder (the log through
// a read-only open, as fsck does), so it runs beside an engine that holds
// the folder, or on a folder no process holds.
type Shipper struct {
	Dir    string // the engine's data folder
	Target Target
	// SegmentBytes is the size past which a segment is closed at the next
	// end of a group; 0 is DefaultSegmentBytes.
	SegmentBytes int
	// Interval is how long Run waits between passes; 0 is DefaultInterval.
	Interval time.Duration
	Logger   *slog.Logger // nil is slog.Default()

	cur *cursor // where the last pass stopped; nil before one shipped
}

// Stats tells what one pass shipped.
type Stats struct {
	LastSeq    uint64 // the last seq in the copy after the pass
	Segments   int    // segments put
	LogBytes   int64  // their bytes
	Media      int    // media put
	MediaBytes int64  // their bytes
	ReadBytes  int64  // bytes of the log read
}

// Run ships a pass every Interval until ctx ends, logging each pass that
// ships something and each failure (a failed pass is tried again at the
// next tick: it resumes where it stopped). It is the seam for
// `serve --backup-to`; it returns ctx's error.
func (s *Shipper) Run(ctx context.Context) error {
	every := s.Interval
	if every <= 0 {
		every = DefaultInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		st, err := s.Ship(ctx)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			s.logger().Warn("backup: shipping failed; trying again", "target", s.Target.String(), "err", err, "in", every)
		case st.Segments > 0:
			s.logger().Info("backup: shipped", "target", s.Target.String(), "last_seq", st.LastSeq, "segments", st.Segments, "media", st.Media, "bytes", st.LogBytes+st.MediaBytes)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (s *Shipper) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Ship ships, once, everything the folder's log holds now that the copy
// lacks, and returns when it is all in the target. It resumes from the
// target's listing: the last segment there tells where the log stopped,
// and a photo is put only if the target does not have it, so no body is
// sent twice after a crash. It holds one segment and its photos' names
// in memory, whatever the corpus. A pass reads the log from its start; the
// next pass of the same Shipper reads only what was appended since (it
// checks that the log still holds the first record and the last one
// shipped where they were). Ship is not for concurrent use.
func (s *Shipper) Ship(ctx context.Context) (Stats, error) {
	var st Stats
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	logPath := filepath.Join(s.Dir, engine.LogFile)
	// The read-only open finds the last whole group; bytes after it are
	// an append in flight, shipped by the next pass.
	l, err := oplog.Open(logPath, oplog.Options{Logger: quiet, ReadOnly: true})
	if err != nil {
		return st, fmt.Errorf("backup: read the log of %s: %w", s.Dir, err)
	}
	last := l.LastSeq()
	l.Close()
	store, err := media.OpenWith(filepath.Join(s.Dir, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		return st, fmt.Errorf("backup: open the media of %s: %w", s.Dir, err)
	}

	shipped, lastSeg, err := lastSegment(ctx, s.Target)
	if err != nil {
		return st, err
	}
	st.LastSeq = shipped
	if last < shipped {
		return st, fmt.Errorf("backup: %s holds ops through seq %d but the log of %s ends at seq %d: this folder is not the one the copy was made of (or was restored from an older copy); ship it to a new target", s.Target, shipped, s.Dir, last)
	}
	if last == 0 {
		return st, nil // nothing logged yet
	}

	if c := s.cur; c != nil && c.seq == shipped && last == shipped {
		return st, nil // nothing new since this Shipper's last pass
	}
	f, err := openDurable(logPath)
	if err != nil {
		return st, err
	}
	defer f.Close()
	seg := segment{limit: s.SegmentBytes}
	if seg.limit <= 0 {
		seg.limit = DefaultSegmentBytes
	}
	rd, off, resumed := s.resume(f, logPath, shipped, &st)
	next := s.cur
	if !resumed {
		next = &cursor{}
	}
	s.cur = nil // set again once this pass ships
	for {
		rec, more, raw, err := rd.Next()
		if err == io.EOF {
			return st, fmt.Errorf("backup: the log of %s ends at seq %d, before the %d it held when the pass began", s.Dir, rd.LastSeq(), last)
		}
		if err != nil {
			return st, fmt.Errorf("backup: %w", err)
		}
		recOff := off
		off += int64(len(raw))
		st.ReadBytes += int64(len(raw))
		if rec.Seq == 1 {
			if err := s.checkManifest(ctx, raw); err != nil {
				return st, err
			}
			next.first = sha256.Sum256(raw)
		}
		if rec.Seq <= shipped {
			if rec.Seq == shipped {
				if err := checkContinues(ctx, s.Target, lastSeg, raw); err != nil {
					return st, err
				}
				next.seq, next.end, next.lastOff, next.lastSum = rec.Seq, off, recOff, sha256.Sum256(raw)
				if rec.Seq == last {
					s.cur = next
					return st, nil // the copy has it all
				}
			}
			continue
		}
		if err := seg.add(rec, raw); err != nil {
			return st, err
		}
		if more {
			continue
		}
		if len(seg.buf) >= seg.limit || rec.Seq == last {
			if err := s.flush(ctx, store, &seg, &st); err != nil {
				return st, err
			}
			next.seq, next.end, next.lastOff, next.lastSum = rec.Seq, off, recOff, sha256.Sum256(raw)
			s.cur = next
		}
		if rec.Seq == last {
			s.cur = next
			return st, nil
		}
	}
}

// cursor is where a Shipper's last pass stopped in the log file, so that
// its next pass (Run's, every few seconds) reads only what was appended
// since, not the whole log again.
type cursor struct {
	seq     uint64   // the last seq shipped
	end     int64    // the offset just past its record
	lastOff int64    // the offset of its record
	lastSum [32]byte // the SHA-256 of its record's bytes
	first   [32]byte // the SHA-256 of the log's first record's bytes
}

// resume returns a reader of the log f from where the last pass stopped,
// when the copy still ends there and the log still holds the same first
// and last records there (so it is the same log); else a reader from the
// start. It returns the offset of the reader's first record.
func (s *Shipper) resume(f *os.File, path string, shipped uint64, st *Stats) (*oplog.Reader, int64, bool) {
	full := func() (*oplog.Reader, int64, bool) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return oplog.NewReader(errReader{err}, path, 0), 0, false
		}
		return oplog.NewReader(f, path, 0), 0, false
	}
	c := s.cur
	if c == nil || c.seq != shipped || shipped == 0 {
		return full()
	}
	same := func(off int64, seq uint64, want [32]byte) bool {
		rec, _, raw, err := oplog.NewReader(io.NewSectionReader(f, off, 1<<62), path, seq-1).Next()
		st.ReadBytes += int64(len(raw))
		return err == nil && rec.Seq == seq && sha256.Sum256(raw) == want
	}
	if !same(0, 1, c.first) || !same(c.lastOff, c.seq, c.lastSum) {
		return full()
	}
	if _, err := f.Seek(c.end, io.SeekStart); err != nil {
		return full()
	}
	return oplog.NewReader(f, path, c.seq), c.end, true
}

// errReader is a reader that fails with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// openDurable opens the log for reading and fsyncs it, so that every byte
// shipped is on the disk: a group a running engine wrote and has not yet
// fsync'ed could otherwise be lost to a power cut after it is in the
// copy, and the log written again differently.
func openDurable(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := f.Sync(); err != nil {
		// Windows flushes only a file open for writing; nothing is
		// written through it.
		w, werr := os.OpenFile(path, os.O_RDWR, 0)
		if werr != nil {
			f.Close()
			return nil, fmt.Errorf("backup: make sure the log is on disk before shipping it: %w", err)
		}
		err = w.Sync()
		w.Close()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("backup: make sure the log is on disk before shipping it: %w", err)
		}
	}
	return f, nil
}

// checkManifest writes the manifest on the first pass, and on every pass
// checks that the target's copy is this log's.
func (s *Shipper) checkManifest(ctx context.Context, first []byte) error {
	sum := sha256.Sum256(first)
	want := hex.EncodeToString(sum[:])
	m, err := readManifest(ctx, s.Target)
	if errors.Is(err, ErrNoCopy) {
		m = &Manifest{Format: Format, FirstRecordSHA256: want, EngineID: engineID(s.Dir)}
		if err := writeManifest(ctx, s.Target, m); err != nil {
			return fmt.Errorf("backup: write %s: %w", ManifestName, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if m.FirstRecordSHA256 != want {
		return fmt.Errorf("backup: %s holds the copy of another log (its first record differs from the first record of %s); ship this folder to a new target", s.Target, s.Dir)
	}
	return nil
}

// engineID is the folder's engine id, "" when it has none yet.
func engineID(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, engine.IdentityFile))
	if err != nil {
		return ""
	}
	var v struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	return v.ID
}

// lastSegment lists the target's segments and returns the last one and
// the seq it ends with (0, "" when there is none). The listing is in
// order, so it keeps only the last name.
func lastSegment(ctx context.Context, t Target) (last uint64, name string, err error) {
	err = t.List(ctx, logPrefix, func(n string, _ int64) error {
		if _, l, ok := parseSeg(n); ok && l > last {
			last, name = l, n
		}
		return nil
	})
	if err != nil {
		return 0, "", fmt.Errorf("backup: list the segments in %s: %w", t, err)
	}
	return last, name, nil
}

// checkContinues checks that the last record of the target's last segment
// is the record the log holds at that seq, byte for byte: a folder whose
// log was replaced is never shipped on top of another history.
func checkContinues(ctx context.Context, t Target, name string, raw []byte) error {
	first, _, _ := parseSeg(name)
	rc, err := t.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("backup: read %s: %w", name, err)
	}
	defer rc.Close()
	rd := oplog.NewReader(rc, name, first-1)
	var lastRaw []byte
	for {
		_, _, r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("backup: the copy's last segment is damaged: %w", err)
		}
		lastRaw = append(lastRaw[:0], r...)
	}
	if !bytes.Equal(lastRaw, raw) {
		return fmt.Errorf("backup: %s in %s ends with a record that differs from the log's at the same seq: this folder's log is not the one the copy was made of; ship it to a new target", name, t)
	}
	return nil
}

// segment is the segment being gathered: its records' bytes and the
// photos they name.
type segment struct {
	limit       int
	first, last uint64
	buf         []byte
	media       []mirror.MediaPut
	seen        map[string]bool
}

func (g *segment) add(rec oplog.Record, raw []byte) error {
	if g.first == 0 {
		g.first = rec.Seq
	}
	g.last = rec.Seq
	g.buf = append(g.buf, raw...)
	if rec.Op != api.OpMediaPut {
		return nil
	}
	var m mirror.MediaPut
	if err := json.Unmarshal(rec.Data, &m); err != nil || !api.ValidSHA256(m.SHA256) {
		return fmt.Errorf("backup: the media.put op at seq %d names no SHA-256", rec.Seq)
	}
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	if !g.seen[m.SHA256] {
		g.seen[m.SHA256] = true
		g.media = append(g.media, m)
	}
	return nil
}

// flush puts the segment's photos the target lacks, then the segment.
func (s *Shipper) flush(ctx context.Context, store *media.Store, g *segment, st *Stats) error {
	for _, m := range g.media {
		n, err := s.putMedia(ctx, store, m)
		if err != nil {
			return err
		}
		if n >= 0 {
			st.Media++
			st.MediaBytes += n
		}
	}
	name := segName(g.first, g.last)
	if err := s.Target.Put(ctx, name, bytes.NewReader(g.buf), int64(len(g.buf)), sha256.Sum256(g.buf)); err != nil {
		return fmt.Errorf("backup: ship %s: %w", name, err)
	}
	st.Segments++
	st.LogBytes += int64(len(g.buf))
	st.LastSeq = g.last
	*g = segment{limit: g.limit, buf: g.buf[:0]}
	return nil
}

// putMedia puts the blob m names unless the target has it; it returns the
// bytes sent, -1 when none were.
func (s *Shipper) putMedia(ctx context.Context, store *media.Store, m mirror.MediaPut) (int64, error) {
	name := mediaName(m.SHA256)
	if n, err := s.Target.Stat(ctx, name); err == nil {
		if n != m.Size {
			return 0, fmt.Errorf("backup: %s in %s has %d bytes, the log says %d: the object is damaged; move it aside in the target and ship again", name, s.Target, n, m.Size)
		}
		return -1, nil
	} else if !errors.Is(err, ErrNotFound) {
		return 0, fmt.Errorf("backup: %w", err)
	}
	f, err := store.Open(m.SHA256)
	if err != nil {
		return 0, fmt.Errorf("backup: the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	defer f.Close()
	sum, err := hex.DecodeString(m.SHA256)
	if err != nil {
		return 0, err
	}
	// The target checks the bytes against the log's SHA-256 and size as
	// they go: a blob damaged on this disk is refused, never shipped.
	if err := s.Target.Put(ctx, name, f, m.Size, [32]byte(sum)); err != nil {
		return 0, fmt.Errorf("backup: ship the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	return m.Size, nil
}
