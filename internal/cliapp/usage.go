package cliapp

import (
	"errors"
	"reflect"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// exitCodeOf decides the process's exit code for err: exitcode.Of's when
// it finds one (a code attached with internal/exitcode, or a lower
// layer's typed error); else usage for urfave/cli's own exit errors,
// which it returns only for bad command lines (`help x` naming no
// command: "No help topic for 'x'"; an unknown verb is unknownVerb's
// error); else failure. specstack's commands never return
// urfave's exit errors themselves. Only urfave's own type counts: other
// errors with an ExitCode method (a failed jj call knows jj's exit
// status) are failures like any other.
func exitCodeOf(err error) exitcode.Code {
	if code := exitcode.Of(err); code != exitcode.Failure {
		return code
	}
	var urfave cli.ExitCoder
	if errors.As(err, &urfave) && reflect.TypeOf(urfave) == urfaveExit {
		return exitcode.Usage
	}
	return exitcode.Failure
}

// urfaveExit is the type of urfave/cli's own exit errors.
var urfaveExit = reflect.TypeOf(cli.Exit("", 0))
