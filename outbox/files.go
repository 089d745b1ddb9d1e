package outbox

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"

	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/datadir"
	"github.com/sparkfamily/spark/diskfull"
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

// FormatSize writes a size as people read it ("3.2 MB", "512 bytes"), the
// way the outbox's own messages do, so that a front end's sizes match them.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
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
