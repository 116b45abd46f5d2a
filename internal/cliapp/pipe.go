package cliapp

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// stdoutName names the process's standard output in errors.
const stdoutName = "/dev/stdout"

// pipeStdout is the process's standard output as another descriptor of
// the same file, so that a write after its reader went away fails with
// EPIPE, which the command returns and RunStreams turns into a quiet
// exit. Go kills a process by SIGPIPE for such a write to descriptor 1
// itself, and `jj util exec` then reports "External command was
// terminated by signal: 13". (Catching SIGPIPE with os/signal would do
// too, at the cost of its threads in every command; ignoring it would be
// inherited by every child process.) os.Stdout when it cannot be
// duplicated.
func pipeStdout() io.Writer {
	fd, err := syscall.Dup(1)
	if err != nil {
		return os.Stdout
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), stdoutName)
}

// closedPipe reports whether err is a write to out, the standard output
// pipeStdout made, whose reader went away.
func closedPipe(err error, out io.Writer) bool {
	f, ok := out.(*os.File)
	var pe *fs.PathError
	return ok && f.Name() == stdoutName && errors.As(err, &pe) && pe.Path == stdoutName && errors.Is(pe.Err, syscall.EPIPE)
}
