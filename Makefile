# The two commands of the README: `make demo` and `make test`. Each does its
# own set-up (scripts/ensure-tools.sh) so it works on a fresh machine.
SHELL := /bin/bash
GOBIN := $(shell go env GOPATH)/bin
export PATH := $(GOBIN):$(PATH)
VERSION ?= dev
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build demo demo-stop gallery-screenshot test test-packages checks vet lint docs docs-check unit acc fuzz-short fmt clean

all: build

build:
	go build -ldflags "$(LDFLAGS)" -o bin/terraform-provider-clipper .
	go build -o bin/clipperd ./cmd/clipperd

## demo: start clipperd with a generated sample video, apply examples/quickstart, show the clips.
demo:
	@scripts/ensure-tools.sh ffmpeg fonts espeak-ng festival terraform
	@scripts/demo.sh

## demo-stop: stop the clipperd that make demo left running for the gallery.
demo-stop:
	@scripts/demo.sh stop

## gallery-screenshot: regenerate assets/gallery.png, the README's picture of the gallery.
gallery-screenshot:
	@scripts/ensure-tools.sh ffmpeg fonts espeak-ng festival pocketsphinx chromium
	go run ./scripts/gallery-screenshot -out assets/gallery.png

## test: vet, lint, docs drift, unit and acceptance tests (TF_ACC=1) against in-process clipperd; the store suite on SQLite and on a local PostgreSQL (ensure-tools.sh postgres).
test:
	@scripts/ensure-tools.sh ffmpeg fonts espeak-ng festival pocketsphinx tesseract chromium terraform golangci-lint minio postgres
	@scripts/realmedia-fetch.sh
	@$(MAKE) --no-print-directory -j2 test-packages checks

# The checks take about 45 s of CPU, one after another; the tests leave part
# of a core idle (they wait on ffmpeg, terraform and leases), so the checks
# run beside them rather than before. A failing check still fails make test.
test-packages:
	TF_ACC=1 go test -count=1 -timeout 45m ./...

checks:
	@$(MAKE) --no-print-directory vet
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory docs-check

vet:
	go vet ./...

lint:
	golangci-lint run ./...

docs:
	go generate ./...

# CI fails when the generated docs or formatted examples differ from the committed ones.
docs-check: docs
	@if git rev-parse --git-dir >/dev/null 2>&1; then \
	  git diff --exit-code -- docs examples || { echo "docs/ or examples/ are out of date: run 'make docs' and commit"; exit 1; }; \
	  test -z "$$(git status --porcelain -- docs examples)" || { git status --porcelain -- docs examples; echo "untracked generated docs: run 'make docs' and commit"; exit 1; }; \
	fi

unit:
	go test -count=1 ./...

acc:
	TF_ACC=1 go test -count=1 -timeout 45m ./internal/provider/...

# fuzz-short: every fuzz target (func FuzzXxx in a *_fuzz_test.go) for
# FUZZTIME, one at a time, as go test -fuzz takes one target per run. Each
# package's test binary is built once, instrumented (-fuzz), and run per
# target in its directory. A failing input is written to the package's
# testdata/fuzz/FuzzXxx: commit it with the fix. FUZZTIME counts inputs
# (Nx) rather than time: a timed run fails with "context deadline exceeded"
# when the deadline finds a worker busy with a slow input (seen in CI on the
# copy-job target, whose accepted bodies each write to SQLite).
FUZZTIME ?= 5000x
FUZZBIN := $(CURDIR)/bin/fuzz
fuzz-short:
	@set -e; mkdir -p $(FUZZBIN); \
	for pkg in $$(grep -rl --include='*_fuzz_test.go' '^func Fuzz' internal | xargs -n1 dirname | sort -u); do \
	  bin=$(FUZZBIN)/$$(echo $$pkg | tr / _).test; \
	  go test -c -fuzz . -o $$bin ./$$pkg; \
	  for target in $$(cd $$pkg && $$bin -test.list '^Fuzz'); do \
	    echo "fuzz ./$$pkg $$target ($(FUZZTIME))"; \
	    (cd $$pkg && $$bin -test.run '^$$' -test.fuzz "^$$target\$$" -test.fuzztime $(FUZZTIME) \
	      -test.fuzzcachedir $(FUZZBIN)/cache/$$pkg/$$target); \
	  done; \
	done

fmt:
	gofmt -w $$(git ls-files '*.go')
	terraform fmt -recursive examples

clean: demo-stop
	rm -rf bin .demo
