// Command fakemodel is the fake of the model APIs the AI coding agents
// call (internal/fakemodel), built as a command, for running the real
// Claude Code or Codex CLI offline outside the test scripts (the agents
// benchmark, testdata/bench/agents.sh, builds it):
//
//	go build -o ~/.local/bin/fakemodel ./testdata/tools/fakemodel
//	fakemodel run scenario.json -- jj kaisen run plan.md --worker claude
//	fakemodel serve scenario.json   # prints the URL; stops on a signal
//
// Nothing it serves reaches a real model; the scenario file says every
// answer (see internal/fakemodel's package doc).
package main

import "github.com/specstack/specstack/internal/fakemodel"

func main() { fakemodel.Main() }
