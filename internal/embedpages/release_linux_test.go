package embedpages

import (
	"encoding/binary"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// present tells, for each whole page within s, whether the process maps
// it now (bit 63 of its entry in /proc/self/pagemap).
func present(t *testing.T, s string) []bool {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap to read: %v", err)
	}
	defer f.Close()
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	first := (start + page - 1) &^ (page - 1)
	last := (start + uintptr(len(s))) &^ (page - 1)
	var out []bool
	buf := make([]byte, 8)
	for p := first; p < last; p += page {
		if _, err := f.ReadAt(buf, int64(p/page*8)); err != nil {
			t.Fatal(err)
		}
		out = append(out, binary.LittleEndian.Uint64(buf)>>63 == 1)
	}
	return out
}

// TestRelease: a file's pages, read in, are mapped; once released they
// are not, and the file reads the same after.
func TestRelease(t *testing.T) {
	s, ok := Data(testFS, "testdata/pages.txt")
	if !ok {
		t.Fatal("Data: testdata/pages.txt not found where it lies")
	}
	want, err := fs.ReadFile(testFS, "testdata/pages.txt")
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for i := range len(s) {
		sum += int(s[i])
	}
	before := present(t, s)
	if len(before) < 3 {
		t.Fatalf("testdata/pages.txt spans %d whole pages; the test needs 3", len(before))
	}
	for i, p := range before {
		if !p {
			t.Fatalf("page %d of %d is not mapped after every byte was read", i, len(before))
		}
	}
	if n := Release(s); n != len(before)*os.Getpagesize() {
		t.Fatalf("Release let go of %d bytes, want %d (%d whole pages)", n, len(before)*os.Getpagesize(), len(before))
	}
	for i, p := range present(t, s) {
		if p {
			t.Errorf("page %d is still mapped after Release", i)
		}
	}
	if s != string(want) {
		t.Fatal("the file reads otherwise after Release")
	}
	if Release(s[:10]) != 0 {
		t.Error("Release of less than a page let something go")
	}
}

// TestMiddleware: a file served through the middleware is whole at the
// client, and its pages are let go after; a file under the size given
// is left as it is.
func TestMiddleware(t *testing.T) {
	sub, err := fs.Sub(testFS, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	h := Middleware(testFS, "testdata", 4096)(http.FileServer(http.FS(sub)))
	srv := httptest.NewServer(h)
	defer srv.Close()
	s, _ := Data(testFS, "testdata/pages.txt")
	want, err := fs.ReadFile(testFS, "testdata/pages.txt") // a copy: reading s maps its pages
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // released, then read in again from the file
		resp, err := http.Get(srv.URL + "/pages.txt")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != string(want) {
			t.Fatalf("served %d bytes (%v), the file holds %d", len(body), err, len(want))
		}
		// The client can have the whole body before the handler returns
		// and the middleware lets the pages go: a moment is given.
		mapped := -1
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mapped = slices.Index(present(t, s), true)
			if mapped < 0 {
				break
			}
		}
		if mapped >= 0 {
			t.Fatalf("page %d of pages.txt is still mapped 5 s after it was served", mapped)
		}
	}
	resp, err := http.Get(srv.URL + "/small.txt")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("small.txt: %s", resp.Status)
	}
}
