package embedpages

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// release drops the whole pages within s from the process's page
// tables (madvise MADV_DONTNEED). s lies in a private mapping of the
// program's file that nothing writes, so the next read of a page maps it
// again from the file: its bytes are the same.
func release(s string) int {
	if len(s) == 0 {
		return 0
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	end := start + uintptr(len(s))
	first := (start + page - 1) &^ (page - 1)
	last := end &^ (page - 1)
	if last <= first {
		return 0
	}
	p := unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), first-start)
	b := unsafe.Slice((*byte)(p), last-first)
	if err := unix.Madvise(b, unix.MADV_DONTNEED); err != nil {
		return 0
	}
	return int(last - first)
}
