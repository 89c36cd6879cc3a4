# tzctx: build, run, test and benchmark the served-context plane.
GO      ?= go
BIN     ?= bin/tzctx
ADDR    ?= 127.0.0.1:8080
DATA    ?= ./tzctx-data
CORPORA ?= $(abspath ../shared/corpora)

.PHONY: build run test bench lint fmt clean

build:
	$(GO) build -o $(BIN) ./cmd/tzctx

# Serve the data directory; an empty one gets the embedded sample site.
run: build
	$(BIN) --data $(DATA) serve --addr $(ADDR)

test:
	$(GO) vet ./...
	TZCTX_CORPORA=$(CORPORA) $(GO) test -race -timeout 20m ./...

# Benchmarks measure against a baseline in the same run and print ratios.
# `make bench` runs them (-v, so that skips show with their reasons), keeps
# their output in bin/bench.out, and then writes BENCHMARKS.md from it with
# `go run ./internal/benchreport/main`, which adds the machine, the date and
# the commit: one table per benchmark with every metric it reported, and the
# lines it printed. The report is written even when a benchmark fails; the
# target then fails with go test's status.
BENCH_PKGS ?= ./query/ ./cmd/tzctx/ ./internal/records/
BENCH_CMD   = $(GO) test -v -run '^$$' -bench . -benchtime 1x -timeout 30m $(BENCH_PKGS)
bench:
	@mkdir -p bin
	{ TZCTX_CORPORA=$(CORPORA) $(BENCH_CMD); echo $$? >bin/bench.rc; } 2>&1 | tee bin/bench.out
	$(GO) run ./internal/benchreport/main -in bin/bench.out -out BENCHMARKS.md -command "$(BENCH_CMD)"
	@exit $$(cat bin/bench.rc)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
