package atomicfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// version is the content of write n: a header naming n, a body and a
// footer, so that a reader can tell a whole file from a torn one.
func version(n int) []byte {
	return fmt.Appendf(nil, "v%06d\n%s\nend %06d\n", n, bytes.Repeat([]byte("spark "), 700), n)
}

func whole(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	n, err := strconv.Atoi(string(b[1:7]))
	return err == nil && bytes.Equal(b, version(n))
}

// TestWriteFile_ConcurrentReader replaces a file 300 times while another
// goroutine reads it over and over, as the engine rereads tokens.json every
// second and the app reads settings.json. Every write must succeed and
// every read see a whole version. On Windows this needs WriteFile's
// MoveFileEx retry for a reader using os.ReadFile, which opens without
// delete sharing (before it, 290 of 300 writes failed with "Access is
// denied"), and ReadFile's delete sharing for a reader that never lets go.
func TestWriteFile_ConcurrentReader(t *testing.T) {
	const writes = 300
	readers := []struct {
		name string
		read func(string) ([]byte, error)
		// pause is the reader's rest between reads; 0 reads in a tight
		// loop, so that the file is nearly always open.
		pause time.Duration
		// readErrsOK: os.ReadFile may fail on Windows while the file is
		// being replaced; that is the reader's own affair.
		readErrsOK bool
	}{
		{"ReadFile/TightLoop", ReadFile, 0, false},
		{"ReadFile/Paced", ReadFile, 500 * time.Microsecond, false},
		{"os.ReadFile/Paced", os.ReadFile, 500 * time.Microsecond, runtime.GOOS == "windows"},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			if rd.pause == 0 && os.Getenv("SPARK_UNDER_WINE") == "1" {
				t.Skip("under Wine: Wine refuses to replace a file while any handle to it is open, even one opened " +
					"with FILE_SHARE_DELETE, which Windows allows; so a reader that never lets go blocks every write there. " +
					"The paced readers below run under Wine too.")
			}
			retriesBefore := replaceRetries.Load()
			path := filepath.Join(t.TempDir(), "tokens.json")
			if err := WriteFile(path, version(0), 0o600); err != nil {
				t.Fatal(err)
			}
			var reads, torn, readErrs atomic.Int64
			var firstReadErr atomic.Value
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					b, err := rd.read(path)
					switch {
					case err != nil:
						readErrs.Add(1)
						firstReadErr.CompareAndSwap(nil, err.Error())
					case !whole(b):
						torn.Add(1)
					}
					reads.Add(1)
					if rd.pause > 0 {
						time.Sleep(rd.pause)
					}
				}
			}()
			failed := 0
			var firstErr error
			for i := 1; i <= writes; i++ {
				if err := WriteFile(path, version(i), 0o600); err != nil {
					failed++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			close(stop)
			wg.Wait()
			t.Logf("%d writes (%d retries while the file was busy), %d reads beside them (%d read errors)",
				writes, replaceRetries.Load()-retriesBefore, reads.Load(), readErrs.Load())
			if failed > 0 {
				t.Errorf("%d of %d writes failed; the first: %v", failed, writes, firstErr)
			}
			if torn.Load() > 0 {
				t.Errorf("%d reads saw a torn file", torn.Load())
			}
			if n := readErrs.Load(); n > 0 && !rd.readErrsOK {
				t.Errorf("%d reads failed; the first: %v", n, firstReadErr.Load())
			}
			if reads.Load() == 0 {
				t.Error("the reader never ran")
			}
			if b, err := ReadFile(path); err != nil || !bytes.Equal(b, version(writes)) {
				t.Errorf("after the writes the file holds %.8q (%v); want version %d", b, err, writes)
			}
			checkNoTemp(t, filepath.Dir(path))
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if _, err := ReadFile(path); !os.IsNotExist(err) {
		t.Errorf("ReadFile(missing) = %v; want a not-exist error", err)
	}
	if err := WriteFile(path, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path); err != nil || string(b) != `{"a":1}` {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(dir); err == nil {
		t.Error("ReadFile(a directory) succeeded")
	}
}
