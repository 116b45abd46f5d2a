# specstack — build, install, test.
#   make install PREFIX=~/.local   build and install the binaries, man pages, completions
#                                  (and jj, openspec, gh when missing)
#   make test                      provision jj (and openspec, gh, claude, codex) and run every test
GO       ?= go
PREFIX   ?= /usr/local
CACHE    ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/specstack
BUILD    ?= .build
FUZZTIME ?= 50000x
BINARIES := jj-openspec jj-kaisen gh-specstack
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X github.com/specstack/specstack/internal/cliapp.Version=$(VERSION)
# Build tags of the shipped binaries. urfave_cli_no_docs leaves out
# urfave/cli's ToMan/ToMarkdown and the markdown renderer they link, whose
# initialisation every start would pay; man pages come from `make man`.
# cmd/startup_test.go reads this line and builds the binaries the same way.
TAGS     := urfave_cli_no_docs
# cgo off: the shipped binaries are linked statically. net links cgo's
# resolver otherwise, and a dynamically linked binary pays the dynamic
# loader and libc's start-up on every run (jj-openspec --version: 3 of
# 14 ms on the development VM). Go's own resolver on Linux; on macOS Go
# reaches the system resolver without cgo. cmd/startup_test.go and
# testdata/bench read this line too.
CGO      := 0

# Fuzz targets run FUZZTIME each in `make test` ("package:FuzzName"). A count
# of inputs, not a duration: a short -fuzztime duration can expire while the
# seed corpus is still being measured and fail with "context deadline exceeded".
FUZZ := conflict:FuzzParse spec/internal/jstext:FuzzDecode conflict:FuzzUnion conflict:FuzzMergeTasks stack:FuzzParseRecipe stack:FuzzProseBlockers spec/tasksmd:FuzzParseTaskLine spec:FuzzParseDelta spec:FuzzMerge spec:FuzzSeparability internal/plan:FuzzParsePlan internal/engine:FuzzParseFindings internal/engine:FuzzParseReport internal/engine:FuzzDecodeEvent stack:FuzzFoldRun spec/drift:FuzzMergeRequirement internal/linediff:FuzzUnified

.PHONY: all build install test unit fuzz bench lint man tools clean
all: build

build:
	@mkdir -p $(BUILD)
	@CGO_ENABLED=$(CGO) $(GO) build -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(BUILD)/ ./cmd/... && echo "built $(BINARIES) ($(VERSION)) in $(BUILD)/"

# One line per installed thing, then where it went and whether it is on PATH.
# jj too, when none >= 0.30 is on PATH, and openspec and gh when none is
# (testdata/tools/install).
install: build
	@CACHE='$(CACHE)' testdata/tools/install '$(BUILD)' '$(PREFIX)' '$(DESTDIR)'

# The README's test command. REQUIRE_JJ=1 turns a missing jj into a failure.
# Tests, then the fuzz targets, through testsum: one line per package (with
# its time) and per script, a heartbeat for packages running over a minute,
# and the "N passed, N failed, N skipped; N fuzz targets …" line last.
test: SHELL := bash
test:
	@toolpath="$$(testdata/tools/provision '$(CACHE)')" || { echo "make test: could not provision jj; see testdata/tools/install-jj" >&2; exit 1; }; \
	set -o pipefail; export PATH="$$toolpath:$$PATH" REQUIRE_JJ=$${REQUIRE_JJ:-1} SPECSTACK_CACHE='$(CACHE)'; \
	{ $(GO) test -count=1 -timeout 45m -json ./...; echo "=== fuzz"; $(MAKE) --no-print-directory fuzz FUZZFLAGS=-json; } | $(GO) run ./testdata/tools/testsum

unit:
	$(GO) test -short ./...

# FUZZFLAGS=-json streams `go test -json` events (for testsum); otherwise
# one line per target and the test binary's own output. Each package's
# fuzz-instrumented test binary is built once (`go test -c -fuzz`, the
# packages side by side) and each target runs it as `go test -fuzz` would:
# in the package directory, with go's fuzz cache (-test.fuzzcachedir) and
# the flags go test adds (-test.timeout 10m, which bounds the seed inputs;
# FUZZTIME bounds the fuzzing; -test.paniconexit0).
fuzz: SHELL := bash
fuzz:
	@bin="$$(mktemp -d)"; trap 'rm -rf "$$bin"' EXIT; \
	mod="$$($(GO) list -m)"; fuzzcache="$$($(GO) env GOCACHE)/fuzz"; pids=(); pkgs=(); \
	for pkg in $$(printf '%s\n' $(FUZZ) | sed 's/:.*//' | awk '!seen[$$0]++'); do \
		$(GO) test -c -fuzz . -o "$$bin/$${pkg//\//_}.test" "./$$pkg" & pids+=($$!); pkgs+=("$$pkg"); \
	done; \
	for i in "$${!pids[@]}"; do wait "$${pids[$$i]}" || { echo "FAIL fuzz: could not build the test binary of $${pkgs[$$i]}"; exit 1; }; done; \
	for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t##*:}; test="$$bin/$${pkg//\//_}.test"; \
		flags=(-test.run '^$$' -test.fuzz "^$$name\$$" -test.fuzztime $(FUZZTIME) -test.fuzzcachedir "$$fuzzcache/$$mod/$$pkg" -test.timeout 10m -test.paniconexit0); \
		if [ -n "$(FUZZFLAGS)" ]; then \
			(cd "$$pkg" && $(GO) tool test2json -t -p "$$mod/$$pkg" "$$test" -test.v=test2json "$${flags[@]}") || exit 1; \
		else \
			echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
			(cd "$$pkg" && "$$test" "$${flags[@]}") || exit 1; \
		fi; \
	done

# bench: the Go benchmarks, then the side-by-side scripts of testdata/bench
# (startup.sh: each binary's --version against a minimal Go program, and
# jj-openspec against the openspec CLI on ~700 files), built with TAGS and CGO.
bench:
	@toolpath="$$(testdata/tools/provision '$(CACHE)')" && \
	PATH="$$toolpath:$$PATH" $(GO) test -run '^$$' -bench . -benchmem ./... && \
	for s in testdata/bench/*.sh; do [ -e "$$s" ] || continue; PATH="$$toolpath:$$PATH" TAGS='$(TAGS)' CGO='$(CGO)' bash "$$s" || exit 1; done

# staticcheck and deadcode at pinned versions, fetched through the Go module
# proxy on first use and cached in GOMODCACHE. A finding fails the lint
# unless .ci/lint/staticcheck.allow or .ci/lint/deadcode.allow names it with a reason.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.7.0
DEADCODE    := golang.org/x/tools/cmd/deadcode@v0.51.0
lint:
	$(GO) vet ./...
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:" >&2; echo "$$out" >&2; exit 1; fi
	@tools="$(abspath $(BUILD))/lint-tools"; out="$(abspath $(BUILD))/lint.out"; \
	GOBIN="$$tools" $(GO) install $(STATICCHECK) && GOBIN="$$tools" $(GO) install $(DEADCODE) || { echo "lint: could not install staticcheck or deadcode through the Go module proxy" >&2; exit 1; }; \
	rc=0; "$$tools/staticcheck" ./... >"$$out" 2>&1 || rc=$$?; \
	[ $$rc -le 1 ] || { cat "$$out" >&2; echo "lint: staticcheck failed (exit $$rc)" >&2; exit 1; }; \
	sed -E 's/^([^:]+):[0-9]+:[0-9]+: .*\(([A-Z0-9]+)\)$$/\1 \2\t&/' "$$out" | testdata/tools/lint-allow staticcheck .ci/lint/staticcheck.allow || exit 1; \
	"$$tools/deadcode" -f '{{range .Funcs}}{{$$.Path}} {{.Name}}{{"\t"}}{{.Position}}: unreachable func: {{.Name}}{{"\n"}}{{end}}' ./... >"$$out" 2>&1 || { cat "$$out" >&2; echo "lint: deadcode failed" >&2; exit 1; }; \
	testdata/tools/lint-allow deadcode .ci/lint/deadcode.allow <"$$out"

# The man pages are rendered here, at build time, from the command
# definitions (urfave/cli's ToMan); the binaries carry no renderer.
man:
	$(GO) run ./internal/manpage/gen man

tools:
	@testdata/tools/provision '$(CACHE)'

clean:
	rm -rf $(BUILD)
