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

// PaintMarks are the web page's own marks of its way to the first tiles,
// for the log: Origin is the page's performance.timeOrigin (Unix time in
// ms), the others are performance.now() (ms since that origin) when the
// boot script ran, the first page of Moments came, the App was drawn and
// the tiles were drawn. Zero is not marked.
type PaintMarks struct {
	Origin    float64 `json:"origin"`
	Script    float64 `json:"script"`
	FirstPage float64 `json:"first_page"`
	App       float64 `json:"app"`
	Tiles     float64 `json:"tiles"`
}

// FirstPaint says the Moments screen has drawn its first tiles with
// moments in them (tiles of them); the app logs "moments first paint"
// with the time since it started, where the moments came from and, from
// marks, when the page began and reached each step, all since the app
// started. Only the first call of a start counts.
func (m *Moments) FirstPaint(tiles int, marks PaintMarks) error {
	a := m.a
	a.paint.once.Do(func() {
		from := "this computer's engine"
		if a.state().remote() {
			from = "the family engine's copy on this computer"
		}
		args := []any{"since_start", time.Since(a.paint.made).Round(time.Millisecond), "tiles", tiles, "from", from}
		if marks.Origin > 0 {
			page := time.UnixMicro(int64(marks.Origin * 1000)).Sub(a.paint.made)
			args = append(args, "page_at", page.Round(time.Millisecond))
			for _, mk := range []struct {
				name string
				ms   float64
			}{{"script_at", marks.Script}, {"first_page_at", marks.FirstPage}, {"app_at", marks.App}, {"tiles_at", marks.Tiles}} {
				if mk.ms > 0 {
					args = append(args, mk.name, (page + time.Duration(mk.ms*float64(time.Millisecond))).Round(time.Millisecond))
				}
			}
		}
		a.log.Info("moments first paint", args...)
	})
	return nil
}
