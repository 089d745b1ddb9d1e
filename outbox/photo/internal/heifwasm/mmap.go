//go:build linux || darwin

package heifwasm

import (
	"context"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// withMemory makes the instances started with ctx keep their linear memory
// outside the Go heap, in one mapping reserved up front: growing it never
// copies, the garbage collector never scans or counts it (a decode's
// memory would otherwise pace the collections of the whole program), and
// closing the instance gives the pages back at once. Only the pages the
// decoder touches are resident.
func withMemory(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(newMapped))
}

// maxReserve bounds the address space one instance reserves: the module's
// memory is 32-bit.
const maxReserve = 4 << 30

// mapped is a linear memory in an anonymous private mapping.
type mapped struct{ buf []byte }

func newMapped(_, _ uint64) experimental.LinearMemory {
	return &mapped{}
}

func (m *mapped) Reallocate(size uint64) []byte {
	if m.buf == nil {
		b, err := syscall.Mmap(-1, 0, maxReserve, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			return nil
		}
		m.buf = b
	}
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *mapped) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}
