package push

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/internal/dirlock"
)

// checkpointVersion is the version of the checkpoint file's format.
const checkpointVersion = 1

// stateLockFile is the lock (package dirlock) in the state folder that
// every save of a checkpoint holds while it replaces the file, and the
// sweep of their temp files: two pushes between the same engines (the
// app's Move and a spark-engine push) may run at once and save the same
// checkpoint, and the temp file of a save in progress looks like one a
// kill left. A save holds it for milliseconds.
const stateLockFile = "push.lock"

// stateLockWait bounds how long a save waits for another push's save.
const stateLockWait = 5 * time.Second

// checkpoint is what a push remembers between runs: the source seq through
// which every op is delivered to that target. It is keyed by both engines'
// ids (the file's name), so a target wiped or replaced (a new id) starts
// from the beginning, and is advanced only after the target has answered
// ok, which the contract makes durable.
type checkpoint struct {
	Version int    `json:"version"`
	Source  string `json:"source_engine_id"`
	Target  string `json:"target_engine_id"`
	Seq     uint64 `json:"seq"`
}

// checkpointPath is where the checkpoint of this source and target lives;
// empty when none is kept.
//
// Both ids are peers' words (a remote engine's GET /v1/health), so they
// never become a path: the file is named by a hash of the two, and the ids
// themselves are kept inside it and checked when it is read.
func (p *pusher) checkpointPath() string {
	if p.opts.StateDir == "" || p.stats.SourceID == "" || p.stats.TargetID == "" {
		return ""
	}
	return filepath.Join(p.opts.StateDir, checkpointName(p.stats.SourceID, p.stats.TargetID))
}

// checkpointName is the file name of the checkpoint from src to dst: 128
// bits of a SHA-256 of both ids, whatever bytes they hold.
func checkpointName(src, dst string) string {
	h := sha256.New()
	fmt.Fprintf(h, "spark push checkpoint\x00%s\x00%s", src, dst)
	return "push-" + hex.EncodeToString(h.Sum(nil))[:32] + ".json"
}

// legacyCheckpointPath is where push kept the checkpoint before it was
// named by a hash (format 1, the ids in the file name). It is read only
// when both ids are plain names, a ULID or a "log-" name, which cannot
// reach outside the state folder; empty otherwise.
func (p *pusher) legacyCheckpointPath() string {
	if p.opts.StateDir == "" || !plainID(p.stats.SourceID) || !plainID(p.stats.TargetID) {
		return ""
	}
	return filepath.Join(p.opts.StateDir, "push-"+p.stats.SourceID+"-to-"+p.stats.TargetID+".json")
}

// plainID reports whether id is 1 to 64 ASCII letters, digits and dashes.
func plainID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}

func (p *pusher) loadCheckpoint() (uint64, error) {
	path := p.checkpointPath()
	if path == "" {
		return 0, nil
	}
	p.sweepTemps(path)
	b, err := atomicfile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		// Not kept under its hashed name yet: a checkpoint written before
		// names were hashed carries on from where it was.
		if path = p.legacyCheckpointPath(); path == "" {
			return 0, nil
		}
		b, err = atomicfile.ReadFile(path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("push: read the checkpoint: %w", err)
	}
	var c checkpoint
	if err := json.Unmarshal(b, &c); err != nil || c.Version != checkpointVersion ||
		c.Source != p.stats.SourceID || c.Target != p.stats.TargetID {
		// Not ours or unreadable: replaying from the start is always safe.
		p.opts.Logger.Warn("push: ignoring an unreadable checkpoint; starting from the beginning", "file", path)
		return 0, nil
	}
	return c.Seq, nil
}

// safeSeqLocked is the seq through which every op is delivered (a
// turn.start only once its reading is).
func (p *pusher) safeSeqLocked() uint64 { return p.base }

// save writes the checkpoint, at most every CheckpointEvery unless final.
func (p *pusher) save(final bool) {
	path := p.checkpointPath()
	p.mu.Lock()
	if !final && time.Since(p.lastSave) < p.opts.CheckpointEvery {
		p.mu.Unlock()
		return
	}
	p.lastSave = time.Now()
	seq := p.safeSeqLocked()
	p.stats.Done = seq
	p.mu.Unlock()
	if path == "" {
		return
	}
	b, err := json.Marshal(checkpoint{Version: checkpointVersion, Source: p.stats.SourceID, Target: p.stats.TargetID, Seq: seq})
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
			err = p.writeLocked(path, append(b, '\n'))
		}
	}
	if err != nil {
		p.opts.Logger.Warn("push: could not save the checkpoint; the next run starts further back", "err", err)
		return
	}
	if legacy := p.legacyCheckpointPath(); legacy != "" {
		// Its seq now lives under the hashed name, which is read first.
		_ = os.Remove(legacy)
	}
}

// writeLocked replaces the checkpoint at path with b, holding the state
// folder's lock (stateLockFile).
func (p *pusher) writeLocked(path string, b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), stateLockWait)
	defer cancel()
	l, err := dirlock.Wait(ctx, p.opts.StateDir, stateLockFile, "saving a push checkpoint")
	if err != nil {
		return fmt.Errorf("push: lock the state folder to save the checkpoint: %w", err)
	}
	defer l.Release()
	return atomicfile.WriteFile(path, b, 0o600)
}

// sweepTemps removes the temp files that saves of the checkpoint at path
// cut short by a kill left (atomicfile.SweepTemps), when a push starts.
// It holds the state folder's lock, which every save holds, taken without
// waiting: while another push holds it, one of its saves is in progress
// and nothing is removed (a later push does it). A state folder not made
// yet has nothing to sweep, and is not made here. A failure is only
// logged: a leftover takes a little room and harms nothing.
func (p *pusher) sweepTemps(path string) {
	if err := atomicfile.SweepTempsUnlessHeld(path, p.opts.StateDir, stateLockFile, "removing the temp files of push checkpoints cut short"); err != nil {
		p.opts.Logger.Warn("push: could not remove the temp files of a checkpoint save cut short", "err", err)
	}
}
