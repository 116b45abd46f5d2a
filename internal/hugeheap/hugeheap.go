// Package hugeheap backs the start of a short-lived process's heap with
// one 2 MiB transparent huge page, on Linux, before anything else runs.
//
// A specstack command allocates about a megabyte while it starts and
// runs, spread over a span per size class. Each first touch of a 4 KiB
// page is a page fault, and on the virtual machines agents run on a fault
// costs 10 µs or more (measured: 1,000 fresh pages 10.5 ms, one huge page
// for the same 4 MiB 0.5 ms): some 300 faults were a third of
// `jj openspec validate`'s run time. Go's runtime does not ask for huge
// pages for its heap (it stopped in Go 1.21.4, for long-running servers'
// sake), and with the kernel's usual "madvise" setting it gets none.
//
// Imported for its side effect by each command's main package. It imports
// nothing, so Go initialises it among the first packages, before the
// heavy ones allocate, and it makes its two system calls itself:
//
//   - madvise(MADV_HUGEPAGE) over the heap arena's first 8 MiB, so that
//     pages first touched there later come as huge pages;
//   - madvise(MADV_COLLAPSE) (Linux 6.1) on the first 2 MiB, already
//     partly touched by the runtime, copying it into one huge page.
//
// Every failure is ignored: an older kernel, huge pages set to "never" or
// none free leave the process exactly as it was. Elsewhere than Linux on
// amd64 or arm64 the package does nothing. It runs before the runtime's
// GODEBUG could be read, so GODEBUG=disablethp=1 does not turn it off; the
// cost is one 2 MiB page for a process living milliseconds. With the
// kernel's defrag setting "madvise", a fault in the advised range may
// compact memory first; on a machine whose memory is that fragmented the
// collapse fails and the process runs as it would have.
package hugeheap

const (
	madvHugepage = 14
	madvCollapse = 25
	eagain       = 11
	hugePage     = 2 << 20
	// advised is how much of the heap is marked for huge pages: the
	// runtime maps its first arena (64 MiB) at once, so the advice holds.
	advised = 4 * hugePage
)

// sink keeps the probe allocation, whose address locates the heap.
var sink *[16]byte

// Collapsed reports whether the first 2 MiB of the heap was collapsed
// into a huge page, and Errno the last madvise(MADV_COLLAPSE) error
// otherwise (for tests).
var (
	Collapsed bool
	Errno     uintptr
)
