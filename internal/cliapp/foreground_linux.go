package cliapp

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// takeForeground moves a binary that `jj util exec` started (the jj
// aliases: `jj kaisen run …`) into a process group of its own and makes
// that group the terminal's foreground, so that Ctrl-C reaches this
// process and its jj and git calls but not the jj above it: jj 0.46 ends
// `util exec` at once with status 1 on SIGINT, without waiting for its
// child, while this process stops in order and exits 10, which jj then
// passes on. It does nothing unless stdin is a terminal whose foreground
// group is this process's, JJ_WORKSPACE_ROOT says jj started it and no
// specstack process above took the foreground already. The
// returned function gives the terminal back to the group it took it from
// (call it before exiting). Ctrl-Z is ignored meanwhile: a stopped
// process in a group of its own would leave jj and the shell waiting.
func takeForeground() (restore func()) {
	nothing := func() {}
	if os.Getenv("JJ_WORKSPACE_ROOT") == "" || os.Getenv(foregroundEnv) != "" {
		return nothing
	}
	fd := os.Stdin.Fd()
	var fg int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&fg))); e != 0 {
		return nothing // not a terminal
	}
	own := syscall.Getpgrp()
	if int(fg) != own || own == os.Getpid() {
		return nothing // in the background, or already a group's leader
	}
	// A background group that sets the terminal's foreground gets SIGTTOU.
	signal.Ignore(syscall.SIGTTOU, syscall.SIGTSTP)
	if err := syscall.Setpgid(0, 0); err != nil {
		signal.Reset(syscall.SIGTTOU, syscall.SIGTSTP)
		return nothing
	}
	if !setForeground(fd, int32(os.Getpid())) {
		_ = syscall.Setpgid(0, own)
		signal.Reset(syscall.SIGTTOU, syscall.SIGTSTP)
		return nothing
	}
	// A specstack binary this one starts with the terminal as stdin
	// (inheriting JJ_WORKSPACE_ROOT) leaves the foreground here.
	os.Setenv(foregroundEnv, "1")
	return func() {
		setForeground(fd, fg)
		signal.Reset(syscall.SIGTTOU, syscall.SIGTSTP)
	}
}

// foregroundEnv marks the processes below the one that took the
// terminal's foreground.
const foregroundEnv = "SPECSTACK_FOREGROUND"

func setForeground(fd uintptr, pgrp int32) bool {
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&pgrp)))
	return e == 0
}
