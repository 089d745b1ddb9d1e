package engine

import (
	"path/filepath"

	"github.com/sparkfamily/spark/internal/atomicfile"
)

// sweepTemps removes the temp files that writes of the folder's small files
// cut short by a crash or a kill left (atomicfile.SweepTemps). Open calls
// it once it holds the folder's lock and has opened the token store,
// before anything can write. engine-id.json and engine.json are written
// only by an open engine (ID, SetSeats), which holds engine.lock, so no
// write of theirs is in progress. tokens.json is changed by the token
// commands too, beside a live engine, holding only tokens.lock: the store
// sweeps its own under that lock. A failure is only logged, since a
// leftover takes a little room and harms nothing.
func (e *Engine) sweepTemps() {
	for _, name := range []string{IdentityFile, ConfigFile} {
		if err := atomicfile.SweepTemps(filepath.Join(e.dir, name)); err != nil {
			e.logger.Warn("engine: could not remove the temp files of a write cut short", "err", err)
		}
	}
	if err := e.tokens.SweepTemps(); err != nil {
		e.logger.Warn("engine: could not remove the temp files of a token change cut short", "err", err)
	}
}
