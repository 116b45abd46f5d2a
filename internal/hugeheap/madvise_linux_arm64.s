#include "textflag.h"

// func madvise(addr, n, advice uintptr) (errno uintptr)
TEXT ·madvise(SB),NOSPLIT,$0-32
	MOVD	addr+0(FP), R0
	MOVD	n+8(FP), R1
	MOVD	advice+16(FP), R2
	MOVD	$233, R8	// SYS_madvise
	SVC
	NEG	R0, R0	// -errno, or 0
	MOVD	R0, errno+24(FP)
	RET
