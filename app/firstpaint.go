package app

import (
	"sync"
	"time"
)

// firstPaint is the window's own mark of when the Moments screen first
// drew tiles with moments in them, logged once per start, so a script
// (e2e/replica-paint.sh) reads the figure from DATA/logs/spark.log.
type firstPaint struct {
	made time.Time // when New ran: the start of the process, near enough
	once sync.Once
}

// FirstPaint says the Moments screen has drawn its first tiles with
// moments in them (tiles of them); the app logs "moments first paint"
// with the time since it started and where the moments came from. Only
// the first call of a start counts.
func (m *Moments) FirstPaint(tiles int) error {
	a := m.a
	a.paint.once.Do(func() {
		from := "this computer's engine"
		if a.state().remote() {
			from = "the family engine's copy on this computer"
		}
		a.log.Info("moments first paint", "since_start", time.Since(a.paint.made).Round(time.Millisecond), "tiles", tiles, "from", from)
	})
	return nil
}
