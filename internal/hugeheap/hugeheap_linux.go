//go:build linux && (amd64 || arm64)

package hugeheap

import "unsafe"

// madvise is the raw system call, in assembly: importing syscall would
// make this package wait for syscall's own initialisation and its
// dependencies', which allocate.
func madvise(addr, n, advice uintptr) (errno uintptr)

func init() {
	sink = new([16]byte)
	base := uintptr(unsafe.Pointer(sink)) &^ (hugePage - 1)
	madvise(base, advised, madvHugepage)
	// EAGAIN: a page was briefly busy (on a CPU's LRU list); retry.
	for range 4 {
		Errno = madvise(base, hugePage, madvCollapse)
		if Errno != eagain {
			break
		}
	}
	Collapsed = Errno == 0
}
