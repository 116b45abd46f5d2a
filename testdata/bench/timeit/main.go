// Command timeit times commands side by side, for the scripts in
// testdata/bench: it runs each command -n times, interleaved round by
// round so that load on a shared machine falls on all of them alike, and
// prints one line per command: its label, the fastest and the median
// wall time in microseconds, tab-separated. A label given to several
// commands pools their times: a command listed K times runs K times a
// round (a fast command needs more samples for its minimum than a slow
// one beside it).
//
//	timeit [-n RUNS] [-C DIR] LABEL CMD ARG... -- LABEL CMD ARG... ...
//
// Commands run with stdin and stdout on /dev/null, stderr kept for the
// error when one fails (a failing command is an error: a benchmark of a
// command that did not do its work measures nothing), each bounded by a
// minute. Arguments are passed as given, never through a shell.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"
)

type command struct {
	label string
	argv  []string
	times []time.Duration
}

func main() {
	runs := flag.Int("n", 10, "runs of each command")
	dir := flag.String("C", "", "working directory of the commands")
	flag.Parse()
	cmds, err := parse(flag.Args())
	if err != nil || *runs < 1 {
		fmt.Fprintf(os.Stderr, "timeit: %v\nusage: timeit [-n RUNS] [-C DIR] LABEL CMD ARG... -- LABEL CMD ARG...\n", err)
		os.Exit(2)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		os.Exit(1)
	}
	for range *runs {
		for _, c := range cmds {
			d, err := run(c.argv, *dir, devnull)
			if err != nil {
				fmt.Fprintf(os.Stderr, "timeit: %s: %v\n", c.label, err)
				os.Exit(1)
			}
			c.times = append(c.times, d)
		}
	}
	var labels []string
	pooled := map[string][]time.Duration{}
	for _, c := range cmds {
		if _, ok := pooled[c.label]; !ok {
			labels = append(labels, c.label)
		}
		pooled[c.label] = append(pooled[c.label], c.times...)
	}
	for _, l := range labels {
		t := pooled[l]
		slices.Sort(t)
		fmt.Printf("%s\t%d\t%d\n", l, t[0].Microseconds(), t[len(t)/2].Microseconds())
	}
}

func parse(args []string) ([]*command, error) {
	var cmds []*command
	for len(args) > 0 {
		i := slices.Index(args, "--")
		if i < 0 {
			i = len(args)
		}
		if i < 2 {
			return nil, fmt.Errorf("each command needs a label and a program")
		}
		cmds = append(cmds, &command{label: args[0], argv: args[1:i]})
		args = args[min(i+1, len(args)):]
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("no command to time")
	}
	return cmds, nil
}

func run(argv []string, dir string, devnull *os.File) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout = devnull, devnull
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%v: %w\n%s", argv, err, stderr.Bytes())
	}
	return d, nil
}
