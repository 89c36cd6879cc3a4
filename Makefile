# tzctx: build, run, test and benchmark the served-context plane.
GO      ?= go
BIN     ?= bin/tzctx
ADDR    ?= 127.0.0.1:8080
DATA    ?= ./tzctx-data
CORPORA ?= $(abspath ../shared/corpora)

.PHONY: build run test bench lint fmt clean image vulncheck eval

build:
	$(GO) build -o $(BIN) ./cmd/tzctx

# Serve the data directory; an empty one gets the embedded sample site.
# CONFIG names a configuration file (tzctx serve --config), e.g.
# `make run CONFIG=tzctx.json`; ADDR and DATA, where given on the command
# line or in the environment, override its addr and data, and otherwise
# only where there is no CONFIG.
CONFIG ?=
given    = $(filter command line environment,$(origin $(1)))
RUN_ARGS = $(if $(or $(call given,DATA),$(if $(CONFIG),,x)),--data $(DATA)) serve \
           $(if $(CONFIG),--config $(CONFIG)) $(if $(or $(call given,ADDR),$(if $(CONFIG),,x)),--addr $(ADDR))
run: build
	$(BIN) $(RUN_ARGS)

# Retrieval evaluation (issue 30): ../shared/eval/eval.py ingests the five
# non-Mintlify corpora, serves them with bin/tzctx and asks its development
# questions of the contract search, two BM25 baselines and
# search_documentation. Its figures are deterministic; the per-tree run is
# the gate (it exits 1 when search_documentation does not beat the bm25
# page baseline's MRR and the bm25 section pack's answer-in-pack by 0.05 on
# both forms of the questions). The run over all trees at once is printed
# beside it, not gated. Skipped, saying why, where the runner or python3
# is absent.
EVAL ?= $(abspath ../shared/eval)
eval: build
	@if [ ! -f "$(EVAL)/eval.py" ]; then echo "make eval: skipped: $(EVAL)/eval.py is absent (the questions live beside the checkout, in ../shared/eval)"; \
	elif ! command -v python3 >/dev/null 2>&1; then echo "make eval: skipped: python3 is absent (install python3 to run ../shared/eval/eval.py)"; \
	else TZCTX_BIN=$(abspath $(BIN)) python3 "$(EVAL)/eval.py" --questions "$(EVAL)/questions" --per-tree && \
	  { echo "make eval: the same questions over all trees at once (reported, not gated):"; \
	    TZCTX_BIN=$(abspath $(BIN)) python3 "$(EVAL)/eval.py" --questions "$(EVAL)/questions" | tail -n 1; true; }; fi

# The tests' tools that Go and npm can install (versitygw; where node is
# present, the npm packages of mcp/testdata/ts and internal/console/e2e)
# are installed once by .ci/tools into ~/.cache/tzctx-tools (TZCTX_TOOLS
# overrides it), which then runs the tests pointed at them.
TOOLS = GO=$(GO) ./.ci/tools

# The tests run in two tiers (contracts/choices/testing.md#ch-test-tiers).
# make test runs go test -short: the unit and in-process tests,
# with -race, the tzctx binary the child-process tests run built once per
# test process; a test of the long tier skips there, saying "runs in make
# test-long". make test-long runs every test without -short: those of
# make test and the long tier (the real corpora, child processes at scale,
# soak, kills, the browser, the exhaustive forms of the sampled tests),
# then make fuzz for LONG_FUZZTIME per target. CI runs both.
#
# go test -json goes through internal/dev/testreport, which prints what plain
# go test would (each package's line, each failed test's output) and then
# every skipped test with its reason and the counts; the whole event
# stream is kept in bin/test.json (bin/test-long.json for make test-long).
# The target's status is go test's.
# -race needs cgo and a C compiler; where Go finds none (CGO_ENABLED=0),
# the tests run without the race detector, and the target says so.
RACE = $(shell [ "$$($(GO) env CGO_ENABLED)" = 1 ] && echo -race)
# go test FLAGS, through testreport, keeping the stream in bin/$(1).json.
GO_TEST = mkdir -p bin && $(GO) build -o bin/testreport ./internal/dev/testreport/main && \
	{ [ -n "$(RACE)" ] || echo "make $@: no C compiler for cgo (go env CGO_ENABLED is 0), so the tests run without -race; install gcc for the race detector"; } && \
	TZCTX_CORPORA=$(CORPORA) $(TOOLS) bash -o pipefail -c '$(GO) test $(RACE) $(2) -json ./... | tee bin/$(1).json | bin/testreport'
LONG_FUZZTIME ?= 5s
.PHONY: test-long
test:
	$(GO) vet ./...
	$(call GO_TEST,test,-short -timeout 45m)

test-long:
	$(call GO_TEST,test-long,-timeout 45m)
	$(MAKE) fuzz FUZZTIME=$(LONG_FUZZTIME)

# Fuzz every fuzz target of the module (discovered with go list and
# go test -list) for FUZZTIME each, without -race; .ci/fuzz prints each
# target's time and executions and a summary, and on a failure names and
# prints the crasher under testdata/fuzz/FuzzName/ and exits 1.
FUZZTIME ?= 30s
.PHONY: fuzz
fuzz:
	GO=$(GO) TZCTX_CORPORA=$(CORPORA) ./.ci/fuzz $(FUZZTIME)

# Benchmarks measure against a baseline in the same run and print ratios.
# `make bench` runs them (-v, so that skips show with their reasons), keeps
# their output in bin/bench.out, and then writes BENCHMARKS.md from it with
# `go run ./internal/dev/benchreport/main`, which adds the machine, the date and
# the commit: one table per benchmark with every metric it reported, and the
# lines it printed. The report is written even when a benchmark fails; the
# target then fails with go test's status.
BENCH_PKGS ?= ./query/ ./cmd/tzctx/ ./internal/ops/records/
BENCH_CMD   = $(GO) test -v -run '^$$' -bench . -benchtime 1x -timeout 90m $(BENCH_PKGS)
bench:
	@mkdir -p bin
	{ TZCTX_CORPORA=$(CORPORA) $(BENCH_CMD); echo $$? >bin/bench.rc; } 2>&1 | tee bin/bench.out
	$(GO) run ./internal/dev/benchreport/main -in bin/bench.out -out BENCHMARKS.md -command "$(BENCH_CMD)"
	@exit $$(cat bin/bench.rc)

# The operating page's screenshot (docs/operating.md, Console),
# docs/console.png, written by the console's
# browser tests (TestConsoleE2E: Debian's chromium at /usr/bin/chromium,
# and internal/console/e2e's npm packages, which .ci/tools installs) from
# the search view.
.PHONY: screenshot
screenshot:
	@mkdir -p docs
	rm -f docs/console.png
	TZCTX_README_SHOT=$(CURDIR)/docs/console.png $(TOOLS) $(GO) test -count=1 -run '^TestConsoleE2E$$' ./cmd/tzctx/
	@test -s docs/console.png || { echo "docs/console.png was not written: the browser tests skipped (run go test -v -run TestConsoleE2E ./cmd/tzctx/ to see why)"; exit 1; }

# The container image (Containerfile): a static binary built here, copied
# with the host's CA bundle into an empty base. buildah builds it with no
# daemon and no registry, in throwaway storage (IMAGE_STORE, default a
# fresh temporary folder, removed at the end). The target then checks the
# image's user, volume and entry point, runs /tzctx --help in it, and runs
# the default serve in it (on IMAGE_SMOKE_ADDR, host network) until
# /healthz answers 200 from a process of uid 65532: the sample site was
# extracted under /tmp and ingested into /data as that user.
IMAGE            ?= localhost/tzctx:ci
IMAGE_STORE      ?=
IMAGE_SMOKE_ADDR ?= 127.0.0.1:18931
image:
	rm -rf bin/image
	mkdir -p bin/image/root-data/data bin/image/root-tmp/tmp
	chmod 0755 bin/image/root-data/data
	chmod 1777 bin/image/root-tmp/tmp
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o bin/tzctx-static ./cmd/tzctx
	cp bin/tzctx-static bin/image/tzctx
	cp /etc/ssl/certs/ca-certificates.crt bin/image/ca-certificates.crt
	@set -eu; S="$(IMAGE_STORE)"; \
	if [ -z "$$S" ]; then S=$$(mktemp -d); trap 'rm -rf "$$S"' EXIT; fi; \
	BA="buildah --root $$S/root --runroot $$S/run --storage-driver vfs"; \
	$$BA bud --quiet --isolation chroot --pull=never --timestamp 0 -f Containerfile -t $(IMAGE) bin/image; \
	got=$$($$BA inspect --format '{{.OCIv1.Config.User}} {{.OCIv1.Config.Volumes}} {{.OCIv1.Config.Entrypoint}}' $(IMAGE)); \
	echo "image $(IMAGE): $$got"; \
	if [ "$$got" != "65532:65532 map[/data:{}] [/tzctx]" ]; then echo "want 65532:65532 map[/data:{}] [/tzctx]"; exit 1; fi; \
	c=$$($$BA from --pull-never $(IMAGE)); \
	$$BA run --isolation chroot $$c -- /tzctx --help >/dev/null; \
	echo "image $(IMAGE): /tzctx --help runs in it"; \
	$$BA run --isolation chroot $$c -- /tzctx serve --addr $(IMAGE_SMOKE_ADDR) >$$S/serve.log 2>&1 & run=$$!; \
	ok=; for i in $$(seq 1 60); do \
	  if curl -fsS -o /dev/null http://$(IMAGE_SMOKE_ADDR)/healthz 2>/dev/null; then ok=1; break; fi; sleep 1; \
	done; \
	uid=$$(ps -eo uid=,comm=,args= | awk '$$2 == "tzctx" && /serve --addr $(IMAGE_SMOKE_ADDR)/ {print $$1}'); \
	kill $$run; wait $$run 2>/dev/null || true; $$BA rm $$c >/dev/null; \
	if [ -z "$$ok" ]; then echo "serve in the image never answered /healthz:"; cat $$S/serve.log; exit 1; fi; \
	if [ "$$uid" != "65532" ]; then echo "serve in the image ran as uid '$$uid', not 65532"; exit 1; fi; \
	echo "image $(IMAGE): serve answers /healthz 200, as uid $$uid"

# govulncheck needs its online database (vuln.go.dev), which the CI
# machines cannot reach: run this in a networked job before a release
# (docs/development.md, "Release checklist"). It is not part of .ci/run.
GOVULNCHECK ?= golang.org/x/vuln/cmd/govulncheck@v1.9.0
vulncheck:
	$(GO) run $(GOVULNCHECK) ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
