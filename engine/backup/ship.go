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
	"sync"
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

// DefaultInterval is how long a Keeper waits between two passes.
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
	// Interval is how long a Keeper waits between passes; 0 is
	// DefaultInterval.
	Interval time.Duration
	Logger   *slog.Logger // nil is slog.Default()
	// Key is the folder's key (LoadOrCreateKey): a new copy is encrypted
	// to it (format 2), and an encrypted copy is shipped to only with
	// the key it was made for. With no Key, a Shipper ships only to a
	// plain copy (format 1, made by an older Spark) and refuses to make
	// a new one.
	Key *Key
	// Busy, if set, tells whether the engine is taking writes (a Keeper
	// sets it: a batch logged in the last half second). While it is, a
	// pass puts one photo at a time, not Puts, so that its encryption,
	// hashing and reading leave the CPU and the disk to the captures.
	Busy func() bool

	cur    *cursor // where the last pass stopped; nil before one shipped
	seal   *sealer // how the copy's bodies are encrypted, nil for plain; set by the first record's pass
	warned bool    // the copy was said to be plain
	// have, during a pass to a copy that holds no segment yet, is the
	// photos the copy holds (name to size), listed once at its start;
	// nil asks the target for each photo (Stat)
	have map[string]int64
	// purged is the moments the folder's log purges, read when a photo
	// is found missing (purged.go)
	purged purgedSet
}

// Stats tells what one pass shipped.
type Stats struct {
	LastSeq    uint64 // the last seq in the copy after the pass
	Segments   int    // segments put
	LogBytes   int64  // their bytes
	Media      int    // media put
	MediaBytes int64  // their bytes
	ReadBytes  int64  // bytes of the log read
	// LogSeq is the last seq of the log the pass read to (its last whole
	// group); FirstUnshippedAt, when the pass ends with ops the copy
	// lacks (it failed), when the first of them was logged.
	LogSeq           uint64
	FirstUnshippedAt time.Time
	// CopySeq is the last seq the copy held when the pass began, read
	// from its listing; Listed tells that the listing was read.
	CopySeq uint64
	Listed  bool
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
// in memory, whatever the corpus.
//
// A first pass reads the whole log (a read-only open, as fsck does, then
// the records up to its last whole group). The next pass of the same
// Shipper reads only what was appended since, once it has checked that
// the log still holds the first record and the last one shipped where
// they were; a record cut short there (an append in flight) ends that
// pass at the last whole group. Ship is not for concurrent use.
func (s *Shipper) Ship(ctx context.Context) (Stats, error) {
	var st Stats
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := media.OpenWith(filepath.Join(s.Dir, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		return st, fmt.Errorf("backup: open the media of %s: %w", s.Dir, err)
	}
	shipped, lastSeg, err := lastSegment(ctx, s.Target)
	if err != nil {
		return st, err
	}
	st.LastSeq, st.CopySeq, st.Listed = shipped, shipped, true
	if c := s.cur; c != nil && c.seq == shipped && shipped > 0 {
		ok, err := s.shipResumed(ctx, store, &st)
		if ok || err != nil {
			return st, err
		}
		// The log is not as the last pass left it: a full pass judges it,
		// from what the copy holds now.
		if shipped, lastSeg, err = lastSegment(ctx, s.Target); err != nil {
			return st, err
		}
	}
	s.cur = nil
	return st, s.shipFull(ctx, store, shipped, lastSeg, &st)
}

// shipFull reads the log from its start and ships what follows shipped.
func (s *Shipper) shipFull(ctx context.Context, store *media.Store, shipped uint64, lastSeg string, st *Stats) error {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	logPath := filepath.Join(s.Dir, engine.LogFile)
	// The read-only open finds the last whole group; bytes after it are
	// an append in flight, shipped by the next pass.
	l, err := oplog.Open(logPath, oplog.Options{Logger: quiet, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("backup: read the log of %s: %w", s.Dir, err)
	}
	last := l.LastSeq()
	l.Close()
	st.LogSeq = last
	if last < shipped {
		return fmt.Errorf("backup: %s holds ops through seq %d but the log of %s ends at seq %d: this folder is not the one the copy was made of (or was restored from an older copy); ship it to a new target", s.Target, shipped, s.Dir, last)
	}
	if last == 0 {
		return nil // nothing logged yet
	}
	// Every byte through last was written before this fsync.
	f, err := openDurable(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	if shipped == 0 {
		// A first copy (or one whose first pass was cut before its
		// first segment): one listing of the few photos it may hold
		// answers for every photo, where a HEAD each would cost a round
		// trip each.
		if s.have, err = listMedia(ctx, s.Target); err != nil {
			return err
		}
		defer func() { s.have = nil }()
	}
	p := s.newPass(store, st, &cursor{})
	rd := oplog.NewReader(f, logPath, 0)
	for {
		rec, more, raw, err := rd.Next()
		if err == io.EOF {
			return fmt.Errorf("backup: the log of %s ends at seq %d, before the %d it held when the pass began", s.Dir, rd.LastSeq(), last)
		}
		if err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		if rec.Seq == 1 {
			if err := s.checkManifest(ctx, raw); err != nil {
				return err
			}
			p.cur.first = sha256.Sum256(raw)
		}
		if rec.Seq <= shipped {
			p.skip(raw)
			if rec.Seq == shipped {
				if err := checkContinues(ctx, s.Target, s.seal, lastSeg, raw); err != nil {
					return err
				}
				p.shipped(rec.Seq, raw)
			}
			if rec.Seq == last {
				return nil // the copy has it all
			}
			continue
		}
		if err := p.add(ctx, rec, more, raw, rec.Seq == last); err != nil {
			return err
		}
		if rec.Seq == last {
			return nil
		}
	}
}

// shipResumed ships what the log got since this Shipper's last pass. It
// reports false, having shipped nothing, when the log does not hold the
// first record and the last one shipped where they were, or when a bad
// record follows (the full pass that follows tells a write cut short by
// a crash from damage). A record cut short by the end of the bytes read
// is an append in flight: the pass ends at the last whole group before
// it, and the next pass reads it whole.
func (s *Shipper) shipResumed(ctx context.Context, store *media.Store, st *Stats) (bool, error) {
	logPath := filepath.Join(s.Dir, engine.LogFile)
	c := s.cur
	st.LogSeq = c.seq
	f, err := os.Open(logPath)
	if err != nil {
		return false, fmt.Errorf("backup: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("backup: %w", err)
	}
	// The size first, then the fsync: every byte read was written before it.
	size := fi.Size()
	if !sameRecord(f, logPath, 0, 1, c.first, st) || !sameRecord(f, logPath, c.lastOff, c.seq, c.lastSum, st) {
		return false, nil
	}
	if size == c.end {
		return true, nil // nothing new
	}
	if err := syncLog(f, logPath); err != nil {
		return false, err
	}
	p := s.newPass(store, st, c)
	p.off = c.end
	rd := oplog.NewReader(io.NewSectionReader(f, c.end, size-c.end), logPath, c.seq)
	for {
		rec, more, raw, err := rd.Next()
		var re *oplog.RecordError
		if err == io.EOF || errors.As(err, &re) && re.Short {
			// The end, perhaps inside a record or a group still being
			// written: ship the whole groups read.
			return true, p.flush(ctx)
		}
		if err != nil {
			return false, nil // a full pass tells a torn append from damage
		}
		if err := p.add(ctx, rec, more, raw, false); err != nil {
			return false, err
		}
	}
}

// sameRecord reports whether the record at off has that seq and bytes of
// that SHA-256.
func sameRecord(f io.ReaderAt, path string, off int64, seq uint64, sum [32]byte, st *Stats) bool {
	rec, _, raw, err := oplog.NewReader(io.NewSectionReader(f, off, 1<<62), path, seq-1).Next()
	st.ReadBytes += int64(len(raw))
	return err == nil && rec.Seq == seq && sha256.Sum256(raw) == sum
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

// pass is one pass's progress through the log: the group being read, the
// segment being gathered, and the cursor it leaves.
type pass struct {
	s     *Shipper
	store *media.Store
	st    *Stats
	cur   *cursor
	off   int64 // the offset of the next record
	group segment
	seg   segment
}

func (s *Shipper) newPass(store *media.Store, st *Stats, cur *cursor) *pass {
	limit := s.SegmentBytes
	if limit <= 0 {
		limit = DefaultSegmentBytes
	}
	return &pass{s: s, store: store, st: st, cur: cur, seg: segment{limit: limit}}
}

// skip passes over a record already in the copy.
func (p *pass) skip(raw []byte) {
	p.off += int64(len(raw))
	p.st.ReadBytes += int64(len(raw))
}

// shipped notes that the copy holds the log through seq, whose record's
// bytes, just read, are raw; the Shipper's next pass starts after it.
func (p *pass) shipped(seq uint64, raw []byte) {
	p.cur.seq, p.cur.end = seq, p.off
	p.cur.lastOff, p.cur.lastSum = p.off-int64(len(raw)), sha256.Sum256(raw)
	p.s.cur = p.cur
}

// add takes the next record: it joins its group, the group joins the
// segment once whole, and the segment is shipped once past its size or
// at the end (end: this record is the last of the pass).
func (p *pass) add(ctx context.Context, rec oplog.Record, more bool, raw []byte, end bool) error {
	if p.st.FirstUnshippedAt.IsZero() {
		p.st.FirstUnshippedAt = rec.At
	}
	p.off += int64(len(raw))
	p.st.ReadBytes += int64(len(raw))
	if err := p.group.add(rec, raw); err != nil {
		return err
	}
	if more {
		return nil
	}
	if rec.Seq > p.st.LogSeq {
		p.st.LogSeq = rec.Seq
	}
	p.seg.join(&p.group, p.off, raw)
	if len(p.seg.buf) >= p.seg.limit || end {
		return p.flush(ctx)
	}
	return nil
}

// flush ships the whole groups gathered, if any.
func (p *pass) flush(ctx context.Context) error {
	if p.seg.first == 0 {
		return nil
	}
	if err := p.s.flush(ctx, p.store, &p.seg, p.st); err != nil {
		return err
	}
	p.cur.seq, p.cur.end, p.cur.lastOff, p.cur.lastSum = p.seg.last, p.seg.end, p.seg.lastOff, p.seg.lastSum
	p.s.cur = p.cur
	p.st.FirstUnshippedAt = time.Time{}
	p.seg = segment{limit: p.seg.limit, buf: p.seg.buf[:0]}
	return nil
}

// openDurable opens the log for reading and fsyncs it, so that every byte
// shipped is on the disk: a group a running engine wrote and has not yet
// fsync'ed could otherwise be lost to a power cut after it is in the
// copy, and the log written again differently.
func openDurable(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := syncLog(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// syncLog fsyncs the log f, open for reading.
func syncLog(f *os.File, path string) error {
	err := f.Sync()
	if err == nil {
		return nil
	}
	// Windows flushes only a file open for writing; nothing is written
	// through it.
	w, werr := os.OpenFile(path, os.O_RDWR, 0)
	if werr == nil {
		err = w.Sync()
		w.Close()
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("backup: make sure the log is on disk before shipping it: %w", err)
}

// checkManifest writes the manifest on the first pass, and on every pass
// checks that the target's copy is this log's, and sets how its bodies
// are encrypted: to the Shipper's key in a new copy or one of format 2,
// not at all in a copy of format 1.
func (s *Shipper) checkManifest(ctx context.Context, first []byte) error {
	sum := sha256.Sum256(first)
	want := hex.EncodeToString(sum[:])
	s.seal = nil
	m, err := readManifest(ctx, s.Target)
	if errors.Is(err, ErrNoCopy) {
		if s.Key == nil {
			return fmt.Errorf("backup: %s holds no copy yet, and a new copy is always encrypted: the shipper was given no key (%s of the data folder)", s.Target, KeyFile)
		}
		m = &Manifest{Format: Format, FirstRecordSHA256: want, EngineID: engineID(s.Dir), Encryption: Encryption, Recipient: s.Key.Recipient()}
		if err := writeManifest(ctx, s.Target, m); err != nil {
			return fmt.Errorf("backup: write %s: %w", ManifestName, err)
		}
		s.seal = newSealer(s.Key)
		return nil
	}
	if err != nil {
		return err
	}
	if m.FirstRecordSHA256 != want {
		return fmt.Errorf("backup: %s holds the copy of another log (its first record differs from the first record of %s); ship this folder to a new target", s.Target, s.Dir)
	}
	if !m.encrypted() {
		// Made by an older Spark: it keeps working as it is, plain, since
		// a copy is never rewritten.
		if !s.warned {
			s.warned = true
			s.logger().Warn("backup: this copy is not encrypted (an older Spark made it); it is shipped to as it is, and a copy to a new target would be encrypted", "target", s.Target.String())
		}
		return nil
	}
	if s.Key == nil {
		return fmt.Errorf("backup: the copy in %s is encrypted, and the shipper was given no key (%s of the data folder)", s.Target, KeyFile)
	}
	if s.Key.Recipient() != m.Recipient {
		return fmt.Errorf("%w (it was made for %s): the key of %s (%s) is %s; put the copy's key back as %s, or ship to a new target", ErrWrongKey, m.Recipient, s.Dir, KeyFile, s.Key.Recipient(), KeyFile)
	}
	s.seal = newSealer(s.Key)
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
func checkContinues(ctx context.Context, t Target, seal *sealer, name string, raw []byte) error {
	first, _, _ := parseSeg(name)
	rc, err := t.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("backup: read %s: %w", name, err)
	}
	defer rc.Close()
	var body io.Reader = rc
	if seal != nil {
		if body, err = seal.open(rc, t, name); err != nil {
			return err
		}
	}
	rd := oplog.NewReader(body, name, first-1)
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

// segment is a run of records and the photos they name: the group being
// read, or the segment being gathered from whole groups.
type segment struct {
	limit       int
	first, last uint64
	buf         []byte
	media       []mirror.MediaPut
	seen        map[string]bool
	// where the last record ends in the log, its offset and its bytes'
	// SHA-256: the cursor once the segment is shipped
	end, lastOff int64
	lastSum      [32]byte
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
	g.addMedia(m)
	return nil
}

func (g *segment) addMedia(m mirror.MediaPut) {
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	if !g.seen[m.SHA256] {
		g.seen[m.SHA256] = true
		g.media = append(g.media, m)
	}
}

// join moves the whole group grp into g; end is the offset just past its
// last record, whose bytes are raw.
func (g *segment) join(grp *segment, end int64, raw []byte) {
	if g.first == 0 {
		g.first = grp.first
	}
	g.last = grp.last
	g.buf = append(g.buf, grp.buf...)
	for _, m := range grp.media {
		g.addMedia(m)
	}
	g.end, g.lastOff, g.lastSum = end, end-int64(len(raw)), sha256.Sum256(raw)
	*grp = segment{buf: grp.buf[:0]}
}

// flush puts the segment's photos the target lacks, then the segment.
func (s *Shipper) flush(ctx context.Context, store *media.Store, g *segment, st *Stats) error {
	if err := s.putAllMedia(ctx, store, g.media, st); err != nil {
		return err
	}
	name := segName(g.first, g.last)
	n, err := s.putSegment(ctx, name, g.buf)
	if err != nil {
		return fmt.Errorf("backup: ship %s: %w", name, err)
	}
	st.Segments++
	st.LogBytes += n
	st.LastSeq = g.last
	return nil
}

// putAllMedia puts the photos the target lacks, transfers at once: a
// photo's question to the store, its encryption and its upload overlap
// another's. It returns when all are in, or with the first failure once
// the puts already under way have ended: they are let finish, so that no
// body is cut short by another's failure and sent again by the next pass.
func (s *Shipper) putAllMedia(ctx context.Context, store *media.Store, ms []mirror.MediaPut, st *Stats) error {
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		first  error
		failed = make(chan struct{})
		next   = make(chan mirror.MediaPut)
		fed    = make(chan struct{}) // closed once every photo is taken
	)
	for w := range min(transfers, len(ms)) {
		wg.Go(func() {
			for {
				// All but the first stand aside while the engine is
				// busy: then one put at a time runs beside the captures.
				if w > 0 && !s.yield(ctx, fed) {
					return
				}
				m, ok := <-next
				if !ok {
					return
				}
				began := time.Now()
				n, err := s.putMedia(ctx, store, m)
				mu.Lock()
				switch {
				case err != nil && first == nil:
					first = err
					close(failed)
				case err == nil && n >= 0:
					st.Media++
					st.MediaBytes += n
				}
				mu.Unlock()
				if err == nil && n > 0 && !s.rest(ctx, time.Since(began)) {
					return
				}
			}
		})
	}
feed:
	for _, m := range ms {
		select {
		case next <- m:
		case <-failed:
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	close(fed)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// putSegment puts the segment b under name, encrypted in an encrypted
// copy; it returns the bytes sent.
func (s *Shipper) putSegment(ctx context.Context, name string, b []byte) (int64, error) {
	if s.seal == nil {
		return int64(len(b)), s.Target.Put(ctx, name, bytes.NewReader(b), int64(len(b)), sha256.Sum256(b))
	}
	c, err := s.seal.sealBytes(b)
	if err != nil {
		return 0, err
	}
	err = s.Target.Put(ctx, name, bytes.NewReader(c), int64(len(c)), sha256.Sum256(c))
	if errors.Is(err, ErrConflict) {
		err = s.conflict(ctx, name, err, int64(len(b)), sha256.Sum256(b))
	}
	return int64(len(c)), err
}

// conflict judges the ErrConflict err of a Put of an encrypted body
// whose plain bytes are size bytes of SHA-256 sum: success when the
// object there decrypts to them (see sealer.samePlain), err when not.
func (s *Shipper) conflict(ctx context.Context, name string, err error, size int64, sum [32]byte) error {
	same, serr := s.seal.samePlain(ctx, s.Target, name, size, sum)
	if serr != nil {
		return fmt.Errorf("%w; and reading the object there failed: %w", err, serr)
	}
	if same {
		return nil
	}
	return err
}

// putMedia puts the blob m names unless the target has it; it returns the
// bytes sent, -1 when none were.
func (s *Shipper) putMedia(ctx context.Context, store *media.Store, m mirror.MediaPut) (int64, error) {
	name := mediaName(m.SHA256)
	want := m.Size
	if s.seal != nil {
		want = sealedSize(m.Size)
	}
	if n, err := s.inCopy(ctx, name); err == nil {
		if n != want {
			return 0, fmt.Errorf("backup: %s in %s has %d bytes, %d expected for the %d the log says: the object is damaged; move it aside in the target and ship again", name, s.Target, n, want, m.Size)
		}
		return -1, nil
	} else if !errors.Is(err, ErrNotFound) {
		return 0, fmt.Errorf("backup: %w", err)
	}
	f, err := store.Open(m.SHA256)
	if errors.Is(err, media.ErrNotFound) {
		if gone, perr := s.purged.has(ctx, s.Dir, m.MomentID); perr != nil {
			return 0, perr
		} else if gone {
			return -1, nil // removed for good before it was shipped (purged.go)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("backup: the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	defer f.Close()
	sum, err := hex.DecodeString(m.SHA256)
	if err != nil {
		return 0, err
	}
	if s.seal != nil {
		return s.putSealedMedia(ctx, name, f, m, [32]byte(sum))
	}
	// The target checks the bytes against the log's SHA-256 and size as
	// they go: a blob damaged on this disk is refused, never shipped.
	if err := s.Target.Put(ctx, name, f, m.Size, [32]byte(sum)); err != nil {
		return 0, fmt.Errorf("backup: ship the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	return m.Size, nil
}

// listMax bounds the photos listMedia keeps: past it (a first pass cut
// after shipping that many photos and no segment), a pass asks for each.
const listMax = 1 << 17

// listMedia lists the photos in t, name to size; nil when there are more
// than listMax.
func listMedia(ctx context.Context, t Target) (map[string]int64, error) {
	have := map[string]int64{}
	errMany := errors.New("many")
	err := t.List(ctx, mediaPrefix, func(name string, size int64) error {
		if len(have) == listMax {
			return errMany
		}
		have[name] = size
		return nil
	})
	if errors.Is(err, errMany) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("backup: list the photos in %s: %w", t, err)
	}
	return have, nil
}

// inCopy gives the size of the object name in the copy, or ErrNotFound:
// from the pass's listing when it has one, else from the target.
func (s *Shipper) inCopy(ctx context.Context, name string) (int64, error) {
	if s.have == nil {
		return s.Target.Stat(ctx, name)
	}
	if n, ok := s.have[name]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("%w: %s", ErrNotFound, name)
}

// yield waits while the engine is busy (Busy); false when ctx ended or
// fed is closed (no photo is left to take).
func (s *Shipper) yield(ctx context.Context, fed <-chan struct{}) bool {
	return s.whileBusy(ctx, fed, nil)
}

// rest, after a put that took took while the engine was busy, waits as
// long again, or until the engine is idle: beside captures a pass takes
// at most half of the time (and of the CPU that encrypting, hashing and
// sending take) for itself, and all of it once they stop. It is false when
// ctx ended.
func (s *Shipper) rest(ctx context.Context, took time.Duration) bool {
	t := time.NewTimer(min(took, maxRest))
	defer t.Stop()
	return s.whileBusy(ctx, nil, t.C)
}

// whileBusy waits, asking Busy every busyPoll, until the engine is idle
// or until fires (true), or until ctx ends or stop is closed (false). A
// nil channel is never ready.
func (s *Shipper) whileBusy(ctx context.Context, stop <-chan struct{}, until <-chan time.Time) bool {
	for s.Busy != nil && s.Busy() {
		select {
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		case <-until:
			return true
		case <-time.After(busyPoll):
		}
	}
	return ctx.Err() == nil
}

// maxRest bounds a rest after one put: a slow store does not hold a pass
// back for long.
const maxRest = time.Second

// busyPoll is how often a put standing aside asks again whether the
// engine is still busy.
const busyPoll = 50 * time.Millisecond

// putSealedMedia encrypts the blob f holds into a temp file and puts that.
// The target checks the ciphertext against its SHA-256; the plain bytes
// are checked here against the log's SHA-256 and size, so that a blob
// damaged on this disk is refused, never shipped, as in a plain copy.
func (s *Shipper) putSealedMedia(ctx context.Context, name string, f io.Reader, m mirror.MediaPut, sum [32]byte) (int64, error) {
	sl, err := s.seal.sealFile(f)
	if err != nil {
		return 0, fmt.Errorf("backup: the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	defer sl.Close()
	if sl.plainSize != m.Size || sl.plainSum != sum {
		return 0, fmt.Errorf("backup: ship the %s %s of moment %s: %w: the blob here has %d bytes of SHA-256 %x, the log says %d bytes of %s (run spark-engine fsck)", m.Role, m.ID, m.MomentID, ErrBadBody, sl.plainSize, sl.plainSum, m.Size, m.SHA256)
	}
	err = s.Target.Put(ctx, name, sl.f, sl.size, sl.sum)
	if errors.Is(err, ErrConflict) {
		err = s.conflict(ctx, name, err, m.Size, sum)
	}
	if err != nil {
		return 0, fmt.Errorf("backup: ship the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	return sl.size, nil
}
