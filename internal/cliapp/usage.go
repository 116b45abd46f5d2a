package cliapp

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// exitCodeOf decides the process's exit code for err: exitcode.Of's when
// it finds one (a code attached with internal/exitcode, or a lower
// layer's typed error); else usage for urfave/cli's own exit errors,
// which it returns only for bad command lines (an unknown verb: "No help
// topic for 'x'"); else failure. specstack's commands never return
// urfave's exit errors themselves.
func exitCodeOf(err error) exitcode.Code {
	if code := exitcode.Of(err); code != exitcode.Failure {
		return code
	}
	var urfave cli.ExitCoder
	if errors.As(err, &urfave) {
		return exitcode.Usage
	}
	return exitcode.Failure
}
