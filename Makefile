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
bench:
	TZCTX_CORPORA=$(CORPORA) $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./query/ ./cmd/tzctx/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
