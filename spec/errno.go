package spec

import "syscall"

// syscallENOTDIR is "not a directory", which OpenSpec treats like a
// missing directory when discovering specs.
var syscallENOTDIR = syscall.ENOTDIR
