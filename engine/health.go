package engine

import "github.com/sparkfamily/spark/engine/oplog"

// opLog returns the log, which recovering from a failed write replaces.
func (e *Engine) opLog() *oplog.Log {
	e.logMu.RLock()
	defer e.logMu.RUnlock()
	return e.log
}
