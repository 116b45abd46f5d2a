package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHeapStartIsHugePage checks, in this test process (which imports
// the package), that the heap's first 2 MiB is one huge page, wherever
// the kernel can give one.
func TestHeapStartIsHugePage(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		if Collapsed {
			t.Fatal("Collapsed is true on a platform where the package does nothing")
		}
		t.Skipf("no huge pages asked for on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages unavailable here (%q, %v)", mode, err)
	}
	switch Errno {
	case 0:
	case 22, 12, 11, 16: // EINVAL (kernel before 6.1, THP disabled for the process), ENOMEM, EAGAIN, EBUSY (no huge page free)
		t.Skipf("the kernel gave no huge page here (errno %d): the package leaves the process as it was", Errno)
	default:
		t.Fatalf("madvise(MADV_COLLAPSE) failed with errno %d", Errno)
	}
	if !Collapsed {
		t.Fatal("the heap's first 2 MiB was not collapsed into a huge page")
	}
	base := uintptr(unsafe.Pointer(sink)) &^ (hugePage - 1)
	kb, err := anonHugeKB(base)
	if err != nil {
		t.Fatal(err)
	}
	if kb < hugePage>>10 {
		t.Fatalf("the mapping holding the heap at %#x has %d kB in huge pages, want at least %d", base, kb, hugePage>>10)
	}
}

// anonHugeKB is the AnonHugePages of the mapping holding addr, from
// /proc/self/smaps.
func anonHugeKB(addr uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			return strconv.Atoi(strings.Fields(line)[1])
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no mapping holds %#x in /proc/self/smaps", addr)
}
