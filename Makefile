# specstack — build, install, test.
#   make install PREFIX=~/.local   build and install the binaries, man pages, completions
#   make test                      provision jj (and openspec, gh) and run every test
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

# Fuzz targets run FUZZTIME each in `make test` ("package:FuzzName"). A count
# of inputs, not a duration: a short -fuzztime duration can expire while the
# seed corpus is still being measured and fail with "context deadline exceeded".
FUZZ := conflict:FuzzParse conflict:FuzzUnion conflict:FuzzMergeTasks stack:FuzzParseRecipe stack:FuzzProseBlockers spec:FuzzParseTaskLine spec:FuzzParseDelta spec:FuzzMerge spec:FuzzSeparability spec:FuzzParsePlan internal/engine:FuzzParseFindings

.PHONY: all build install test unit fuzz bench lint man tools clean
all: build

build:
	@mkdir -p $(BUILD)
	$(GO) build -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(BUILD)/ ./cmd/...

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	for b in $(BINARIES); do \
		install -m 0755 $(BUILD)/$$b $(DESTDIR)$(PREFIX)/bin/$$b && \
		install -m 0644 man/$$b.1 $(DESTDIR)$(PREFIX)/share/man/man1/$$b.1 && \
		$(BUILD)/$$b completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$b && \
		$(BUILD)/$$b completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$b && \
		$(BUILD)/$$b completion fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$b.fish || exit 1; \
	done

# The README's test command. REQUIRE_JJ=1 turns a missing jj into a failure.
test: SHELL := bash
test:
	@toolpath="$$(testdata/tools/provision '$(CACHE)')" || { echo "make test: could not provision jj; see testdata/tools/install-jj" >&2; exit 1; }; \
	set -o pipefail; PATH="$$toolpath:$$PATH" REQUIRE_JJ=$${REQUIRE_JJ:-1} $(GO) test -count=1 -json ./... | $(GO) run ./testdata/tools/testsum && \
	$(MAKE) --no-print-directory fuzz

unit:
	$(GO) test -short ./...

fuzz:
	@for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) ./$$pkg || exit 1; \
	done

# bench: the Go benchmarks, then the side-by-side scripts of testdata/bench
# (startup.sh: each binary's --version against a minimal Go program, and
# jj-openspec against the openspec CLI on ~700 files), built with TAGS.
bench:
	@toolpath="$$(testdata/tools/provision '$(CACHE)')" && \
	PATH="$$toolpath:$$PATH" $(GO) test -run '^$$' -bench . -benchmem ./... && \
	for s in testdata/bench/*.sh; do [ -e "$$s" ] || continue; PATH="$$toolpath:$$PATH" TAGS='$(TAGS)' bash "$$s" || exit 1; done

lint:
	$(GO) vet ./...
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:" >&2; echo "$$out" >&2; exit 1; fi

# The man pages are rendered here, at build time, from the command
# definitions (urfave/cli's ToMan); the binaries carry no renderer.
man:
	$(GO) run ./internal/manpage/gen man

tools:
	@testdata/tools/provision '$(CACHE)'

clean:
	rm -rf $(BUILD)
