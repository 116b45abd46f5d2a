// Command agenttime times an agent process for testdata/bench/agents.sh.
// Installed on PATH under the agent's name (e.g. as `claude`), it runs
// $AGENTTIME_PROGRAM (the real agent) with its own arguments, stdin,
// stdout and stderr, exits with the agent's code, and appends one line to
// $AGENTTIME_LOG:
//
//	START_NS END_NS USER_NS SYS_NS
//
// the wall-clock start and end of the agent process (Unix nanoseconds)
// and the CPU time it and its waited-for children used. The benchmark
// subtracts these from the whole run's time, so that what is left is the
// orchestrator's own. A `--version` call is passed through untimed: asking
// the version is the orchestrator's choice, not the agent's work.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	prog, logPath := os.Getenv("AGENTTIME_PROGRAM"), os.Getenv("AGENTTIME_LOG")
	if prog == "" || logPath == "" {
		fmt.Fprintln(os.Stderr, "agenttime: set AGENTTIME_PROGRAM (the agent) and AGENTTIME_LOG (where the times go)")
		os.Exit(2)
	}
	cmd := exec.Command(prog, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	end := time.Now()
	code := 0
	var xe *exec.ExitError
	switch {
	case errors.As(err, &xe):
		code = xe.ExitCode()
	case err != nil:
		fmt.Fprintf(os.Stderr, "agenttime: run %s: %v\n", prog, err)
		os.Exit(127)
	}
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		os.Exit(code)
	}
	st := cmd.ProcessState
	line := fmt.Sprintf("%d %d %d %d\n", start.UnixNano(), end.UnixNano(), st.UserTime().Nanoseconds(), st.SystemTime().Nanoseconds())
	f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(line) // one write: O_APPEND keeps parallel agents' lines whole
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenttime: log %s: %v\n", logPath, err)
		os.Exit(125)
	}
	os.Exit(code)
}
