// Command fakegh is a stand-in for GitHub, for trying gh-specstack without
// a GitHub account: a local HTTP server speaking the REST paths
// gh-specstack calls, over a state file of repositories, issues and pull
// requests whose branches live in a local bare git repository. It is the
// fake the tests use (internal/fakegh), built as a command:
//
//	go build -o ~/.local/bin/fakegh ./testdata/tools/fakegh
//	fakegh repo acme/app --origin origin.git
//	fakegh run -- gh specstack run 1 --worker ... --yes
//
// Nothing it does reaches GitHub; `fakegh run` points GH_SPECSTACK_API_URL
// at itself and every proxy at a port where nothing listens.
package main

import "github.com/specstack/specstack/internal/fakegh"

func main() { fakegh.Main() }
