package push

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sparkfamily/spark/atomicfile"
)

// checkpointVersion is the version of the checkpoint file's format.
const checkpointVersion = 1

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
func (p *pusher) checkpointPath() string {
	if p.opts.StateDir == "" || p.stats.SourceID == "" || p.stats.TargetID == "" {
		return ""
	}
	return filepath.Join(p.opts.StateDir, fmt.Sprintf("push-%s-to-%s.json", p.stats.SourceID, p.stats.TargetID))
}

func (p *pusher) loadCheckpoint() (uint64, error) {
	path := p.checkpointPath()
	if path == "" {
		return 0, nil
	}
	b, err := atomicfile.ReadFile(path)
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
			err = atomicfile.WriteFile(path, append(b, '\n'), 0o600)
		}
	}
	if err != nil {
		p.opts.Logger.Warn("push: could not save the checkpoint; the next run starts further back", "err", err)
	}
}
