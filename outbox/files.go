package outbox

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"os"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/internal/datadir"
	"github.com/sparkfamily/spark/internal/diskfull"
)

// writeFile is the part of *os.File a capture writes through. Tests swap
// Outbox.create to return one that fails like a full disk.
type writeFile interface {
	io.Writer
	Sync() error
	Close() error
}

func createFile(name string) (writeFile, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// isDiskFull reports whether err means the disk (or the user's quota) is full,
// from a write, an fsync or SQLite (diskfull.Is), or is ErrDiskFull.
func isDiskFull(err error) bool {
	if err == nil {
		return false
	}
	return errors.Is(err, ErrDiskFull) || diskfull.Is(err)
}

// diskFull rewrites a disk-full error into one a person can act on, saying
// how much space the work needed (need 0: unknown). Other errors pass.
func diskFull(err error, need int64) error {
	if !isDiskFull(err) || errors.Is(err, ErrDiskFull) {
		return err
	}
	if need > 0 {
		return fmt.Errorf("%w: the disk holding the outbox is full; this photo needs about %s free; free some space and import it again (%v)", ErrDiskFull, FormatSize(need), err)
	}
	return fmt.Errorf("%w: the disk holding the outbox is full; free some space and try again (%v)", ErrDiskFull, err)
}

// FormatSize writes a size as people read it ("3.2 MB", "512 bytes"), for
// the spark command and the outbox's own messages. The window's sizeWords
// (frontend/src/words.ts) gives the same words: both are checked against
// frontend/test/testdata/sizes.json. Halves round up, as JavaScript's
// toFixed does.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", math.Round(float64(n)/(1<<30)*10)/10)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", math.Round(float64(n)/(1<<20)*10)/10)
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", math.Round(float64(n)/(1<<10)))
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

func defaultRand() float64 { return rand.Float64() }

// defaultHTTPClient is client.NewHTTPClient's, with a connection kept open
// per upload the drain may run at once.
func defaultHTTPClient() *http.Client {
	return client.NewHTTPClient(client.HTTPOptions{IdleConnsPerHost: 8})
}

// DefaultDataDir is Spark's per-user data folder, datadir.Default: the
// outbox lives in its "outbox" subfolder. On Windows it is
// %LocalAppData%\Spark, and an outbox an older Spark left in %AppData%\Spark
// is moved there first; the move is logged to slog's default logger.
func DefaultDataDir() (string, error) {
	return datadir.Default(slog.Default())
}
