# agentls — make demo shows it working (no API key needed); make test runs
# every test this machine can run.
GO      ?= go
BIN     ?= bin/agentls
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# A static binary: no dynamic loader or libc to map and relocate at every
# start (measured here: about 0.8 ms less CPU for `agentls version`, 1.8 MB
# less RSS after a 100-turn task). The pure-Go DNS resolver and user lookup
# serve what cgo served. (Tests keep cgo: -race needs it.)
NOCGO   := CGO_ENABLED=0

.PHONY: docs vsix dist dist-tools dist-check all build install demo demo-cli demo-record test unit e2e race vet fmt bench eval eval-scripted eval-polyglot eval-polyglot-scripted editors-test test-acpclients clean

all: build

build:
	$(NOCGO) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/agentls

install:
	$(NOCGO) $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/agentls

# The main job on the embedded default: a scripted conversation served by
# the project's fake OpenAI-compatible server drives the real binary.
# Building says so first: on a fresh machine Go fetches and compiles the
# dependencies for a minute or two, silently.
demo:
	@echo "▸ building $(BIN) and the demo driver (a minute or two on a fresh machine: Go fetches and compiles the dependencies)…"
	@$(MAKE) -s build
	@$(GO) build -o bin/demo ./cmd/demo
	@bin/demo -agentls $(BIN)

# The same conversation headless, with no key: `agentls run --replay` of a
# recording made by `agentls run` (the editor demo's recording carries the
# editor's context, which a terminal run has not), on a copy of the demo
# workspace.
demo-cli: build
	@d=$$(mktemp -d) && cp -r testdata/workspaces/demo/. $$d && cd $$d && \
		$(CURDIR)/$(BIN) run --replay $(CURDIR)/testdata/recordings/demo-cli.jsonl "Make greet_test.go pass" && \
		echo "▸ the edited copy is in $$d"

# Record the demo conversations anew from testdata/conversations/demo.json:
# the editor's (cmd/demo) and the headless one (testdata/recordings/
# demo-cli.jsonl: `agentls run --record` on a copy of the demo workspace,
# against `bin/fakellm -script` of the same file). Both must be recorded
# again when the tools offered change.
demo-record: build
	$(GO) run ./cmd/demo -agentls $(BIN) -record testdata/recordings/demo.jsonl
	$(GO) build -o bin/fakellm ./cmd/fakellm
	@d=$$(mktemp -d) && cp -r testdata/workspaces/demo/. $$d && \
		{ bin/fakellm -script testdata/conversations/demo.json > $$d.url & pid=$$!; } && \
		while [ ! -s $$d.url ]; do sleep 0.1; done && \
		(cd $$d && XDG_STATE_HOME=$$d.state AGENTLS_MODEL=demo-model $(CURDIR)/$(BIN) run --base-url $$(head -1 $$d.url) \
			--record $(CURDIR)/testdata/recordings/demo-cli.jsonl "Make greet_test.go pass"); rc=$$?; \
		kill $$pid; rm -rf $$d $$d.url $$d.state; exit $$rc

# The evaluation suite (testdata/eval) against the configured model
# (AGENTLS_MODEL, AGENTLS_BASE_URL, AGENTLS_API_KEY); EVALFLAGS adds flags,
# e.g. EVALFLAGS='--set agent.promptProfile=terse --repeat 3 --json terse.json'
# (docs/evaluation.md). eval-scripted plays each task's fix on the scripted
# model (CI). eval-polyglot runs a checkout of Aider's polyglot benchmark
# (POLYGLOT=DIR); eval-polyglot-scripted the project's own exercises.
eval: build
	$(GO) build -o bin/agentls-eval ./cmd/agentls-eval
	bin/agentls-eval --agentls $(BIN) $(EVALFLAGS)

eval-scripted: build
	$(GO) build -o bin/agentls-eval ./cmd/agentls-eval
	bin/agentls-eval --agentls $(BIN) --scripted $(EVALFLAGS)

eval-polyglot: build
	@test -n "$(POLYGLOT)" || (echo "set POLYGLOT to a checkout of Aider-AI/polyglot-benchmark"; exit 2)
	$(GO) build -o bin/agentls-eval ./cmd/agentls-eval
	bin/agentls-eval polyglot --agentls $(BIN) $(EVALFLAGS) $(POLYGLOT)

eval-polyglot-scripted: build
	$(GO) build -o bin/agentls-eval ./cmd/agentls-eval
	bin/agentls-eval polyglot --agentls $(BIN) --scripted $(EVALFLAGS) testdata/eval/_polyglot

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)

# The end-to-end tests run twice: in full against a normal build (the
# 1,000-round typing test included), and -short against a race-instrumented
# server binary.
# gotestsum (a go.mod tool) prints go test's usual output and ends with
# the skipped and the failed tests, each failure with its output, so the end
# of a long log says which test failed and why. e2e/both.sh runs the e2e
# suite in full and under -race -short at once (each leaves a core idle);
# the race pass hides its list of skips: the slow tests the full pass ran.
GOTESTSUM = $(GO) tool gotestsum --format standard-quiet --format-hide-empty-pkg --
test: vet
	$(GOTESTSUM) -race -count=1 $$($(GO) list ./... | grep -v /e2e$$)
	GO=$(GO) e2e/both.sh
	$(MAKE) editors-test

# The editor ACP clients no registry serves (CodeCompanion.nvim, acp.el):
# only where they are unpacked under /opt/agentls-test/acp-clients
# (e2e/acpclients_test.go says how), so not part of make test.
test-acpclients:
	$(GO) test -tags acpclients -count=1 -run 'TestCodeCompanion|TestACPEl' ./e2e

race:
	$(GO) test -race -count=3 ./...

# Micro-benchmarks, then the end-to-end ones (BenchmarkE2E*, BenchmarkStartup)
# that drive bin/agentls against bin/fakellm. BENCHCOUNT=5 for benchstat.
BENCHCOUNT ?= 1
bench: build
	$(GO) build -o bin/fakellm ./cmd/fakellm
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) $$($(GO) list ./... | grep -v /e2e$$)
	AGENTLS_BENCH_BIN=$(CURDIR)/$(BIN) FAKELLM_BENCH_BIN=$(CURDIR)/bin/fakellm \
		$(GO) test -run '^$$' -bench . -benchtime 1x -count $(BENCHCOUNT) ./e2e

# Editor integrations in the real editors this machine has (see editors/).
editors-test:
	editors/test.sh

# The reference pages under docs/reference, from the code's tables (settings,
# commands, event kinds); TestPagesMatchTheCode fails when they differ.
docs:
	$(GO) generate ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin

# The VS Code / Open VSX package for this machine's platform,
# editors/vscode/agentls.vsix: the extension's JavaScript bundled by esbuild
# and this build's server in its bin/ (the extension prefers it to PATH).
vsix: build
	cd editors/vscode && { [ -x node_modules/.bin/esbuild ] || npm ci --no-audit --no-fund; }
	editors/vscode/package-vsix.sh $(BIN) $$($(GO) env GOOS) $$($(GO) env GOARCH) editors/vscode/agentls.vsix

# Release artifacts in dist/ (.goreleaser.yaml): archives for linux, darwin
# and windows on amd64 and arm64, a .vsix per platform, checksums.txt and
# CycloneDX SBOMs. A snapshot by default; the release workflow runs
# `make dist DISTFLAGS=--clean` on a tag to publish. goreleaser and
# cyclonedx-gomod come from GOPATH/bin (make dist-tools, .ci/install).
GOBIN_DIR   := $(shell $(GO) env GOPATH)/bin
GORELEASER_VERSION ?= v2.16.0
CYCLONEDX_GOMOD_VERSION ?= v1.10.0
DISTFLAGS   ?= --snapshot --clean
dist-tools:
	@[ -x $(GOBIN_DIR)/goreleaser ] && $(GOBIN_DIR)/goreleaser --version 2>/dev/null | grep -q 'GitVersion: *$(GORELEASER_VERSION)$$' || \
		GOTOOLCHAIN=local $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	@[ -x $(GOBIN_DIR)/cyclonedx-gomod ] || \
		GOTOOLCHAIN=local $(GO) install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$(CYCLONEDX_GOMOD_VERSION)

dist: dist-tools
	cd editors/vscode && { [ -x node_modules/.bin/esbuild ] || npm ci --no-audit --no-fund; }
	PATH="$(GOBIN_DIR):$$PATH" VERSION=$(VERSION) goreleaser release $(DISTFLAGS)

# What `make dist` must leave in dist/ (dist/check.sh), then the host's
# .vsix installed into code-server, starting its bundled server.
dist-check:
	e2e/dist/test.sh
