package app

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/racebuild"
)

// tileMemoryChild is set in the environment of the process
// TestMediaHandler_TileMemory starts to make the tiles in.
const tileMemoryChild = "SPARK_TILE_MEMORY_CHILD"

// tileMemoryBound is what the tiles asked for at once may take in all:
// issue 32's 150 MB. They take about 80 at most (tileSources copies of
// tileSourceLimit, tileMemory to decode them), and the heap grows past
// what is live until the next garbage collection.
const tileMemoryBound = 150 << 20

// Issue 32, item 4: tiles are bounded by the bytes they decode, not by
// their pixels, with a fixed number made at once. A peer's "small copy"
// of 16 megapixels at 16 bits a channel is a 130 KB PNG that decodes to
// 128 MB (and to 64 MB more once made 8-bit); 8 of them asked for at once,
// with 8 others of 2.6 megapixels at 16 bits (small enough to be made, 39
// MB each), take less than tileMemoryBound in all (950 MB before). The
// tiles are asked over HTTP on loopback from the app's own media handler,
// in a process of their own, which reports the growth of its Go heap (the
// address space the heap mapped, which never shrinks: nothing is sampled,
// so a loaded machine does not change it) and, without the race detector,
// of its resident memory at its peak.
func TestMediaHandler_TileMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peak resident memory is read from /proc/self/status")
	}
	if racebuild.Enabled && os.Getenv(tileMemoryChild) == "" {
		// The detector's shadow memory and its slowness (65 s of the race
		// step) measure the detector; scripts/test.sh runs this test
		// without it, in its step of resource tests.
		t.Skip("the memory of tiles is measured without the race detector (scripts/test.sh runs it so)")
	}
	if os.Getenv(tileMemoryChild) != "" {
		makeHostileTiles(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMediaHandler_TileMemory$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), tileMemoryChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the process making the tiles: %v\n%s", err, out)
	}
	heap, rss := int64(-1), int64(-1)
	for line := range strings.SplitSeq(string(out), "\n") {
		if _, rest, ok := strings.Cut(line, "tile memory: "); ok {
			for f := range strings.FieldsSeq(rest) {
				k, v, _ := strings.Cut(f, "=")
				n, _ := strconv.ParseInt(v, 10, 64)
				switch k {
				case "heap":
					heap = n
				case "rss":
					rss = n
				}
			}
		}
	}
	if heap < 0 {
		t.Fatalf("the process making the tiles did not say what they took:\n%s", out)
	}
	resident := "not measured under the race detector"
	if rss >= 0 {
		resident = fmt.Sprintf("%.1f MB", mb(rss))
	}
	t.Logf("16 hostile tiles asked for at once: the Go heap grew by %.1f MB, the resident memory at its peak by %s", mb(heap), resident)
	if heap > tileMemoryBound || rss > tileMemoryBound {
		t.Errorf("16 hostile tiles at once took %.1f MB of heap, %s resident; want at most %.0f MB", mb(heap), resident, mb(tileMemoryBound))
	}
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// makeHostileTiles is the child's side of TestMediaHandler_TileMemory: it
// puts the hostile copies on an engine, asks for their tiles at once and
// prints "tile memory: heap=N rss=N" (bytes).
func makeHostileTiles(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	cl := client.New(remote.URL, remote.Token, remote.Client())
	var ids []string
	for _, size := range []struct{ w, h int }{{4000, 4000}, {1600, 1600}} {
		idat := flatIDAT16(t, size.w, size.h)
		for i := range 8 {
			p := flatPNG16(size.w, size.h, idat, fmt.Sprintf("hostile copy %d", i))
			ids = append(ids, uploadCopy(t, remote, cl, p, "image/png"))
		}
	}
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.MediaHandler())
	defer srv.Close()
	hc := srv.Client()
	hc.Transport.(*http.Transport).MaxIdleConnsPerHost = len(ids)

	runtime.GC()
	debug.FreeOSMemory()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore, race := int64(-1), racebuild.Enabled
	if !race {
		// Make the peak start from now.
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Fatalf("reset the peak resident memory: %v", err)
		}
		rssBefore = procStatus(t, "VmRSS")
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			resp, err := hc.Get(srv.URL + mediaURL(id) + "?size=" + ImageSizeTile)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("GET the tile of %s: %d %v", id, resp.StatusCode, err)
			}
		})
	}
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	rss := int64(-1)
	if !race {
		rss = procStatus(t, "VmHWM") - rssBefore
	}
	fmt.Printf("tile memory: heap=%d rss=%d\n", int64(after.HeapSys)-int64(before.HeapInuse), rss)
}

// procStatus reads a field of /proc/self/status that is in kB, as bytes.
func procStatus(tb testing.TB, field string) int64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatalf("%s: %v", field, err)
			}
			return n << 10
		}
	}
	tb.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// flatIDAT16 is the compressed pixels of a w by h PNG of 16-bit RGBA, all
// transparent black: they compress a thousand times.
func flatIDAT16(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var b bytes.Buffer
	z, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	row := make([]byte, 1+8*w) // filter byte, then the pixels
	for range h {
		if _, err := z.Write(row); err != nil {
			tb.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// flatPNG16 is a PNG of idat (flatIDAT16's) with a tEXt chunk holding note,
// so that copies of the same picture differ.
func flatPNG16(w, h int, idat []byte, note string) []byte {
	chunk := func(out []byte, typ string, data []byte) []byte {
		out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
		out = append(out, typ...)
		out = append(out, data...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 16, 6, 0, 0, 0) // 16-bit RGBA, not interlaced
	out := []byte("\x89PNG\r\n\x1a\n")
	out = chunk(out, "IHDR", ihdr)
	out = chunk(out, "tEXt", append([]byte("Comment\x00"), note...))
	out = chunk(out, "IDAT", idat)
	return chunk(out, "IEND", nil)
}
