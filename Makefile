# Spark desktop. The README's two commands are `make run` and `make test`.
.PHONY: run test test-quick setup setup-run build package bench powercut clean

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/sparkfamily/spark/internal/version.Version=$(VERSION)
export PATH := $(shell go env GOPATH)/bin:$(PATH)

## run: set up what running needs on this machine (once), build the app and start it
run: setup-run build
	./build/bin/spark-desktop

## test: set up this machine (once) and run every test, as CI does
test: setup
	bash scripts/test.sh

## test-quick: gofmt, vet and the Go tests only
test-quick:
	bash scripts/test.sh --quick

## setup: install what building, running and testing need (make test, CI)
setup:
	bash scripts/setup.sh

## setup-run: install only what building and running the app need (make run)
setup-run:
	bash scripts/setup.sh --run

## build: the desktop app for this machine, into build/bin/spark-desktop
build:
	wails build -o spark-desktop -ldflags "$(LDFLAGS)"

## package: .tar.gz and .deb for Linux, .exe and NSIS installer for Windows, spark-engine binaries, into dist/
package: setup
	bash build/package.sh

## bench: the benchmark commands, figures side by side with their peers
bench:
	go run ./cmd/spark-bench all

## powercut: long power-cut runs of the engine and of its log, from a random seed (about an hour; CI runs a short fixed set; POWERCUT_RUNS and POWERCUTS set their length); a failure names its seed
POWERCUT_RUNS ?= 2000
POWERCUTS ?= 20000
powercut:
	seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "powercut seed $$seed"; \
	go test -count=1 ./engine -run TestEngine_PowerCut -powercut-runs=$(POWERCUT_RUNS) -powercut-seed=$$seed -timeout 2h && \
	go test -count=1 ./engine/oplog -run TestLog_PowerCut -powercuts=$(POWERCUTS) -powercut-seed=$$seed -timeout 2h

clean:
	rm -rf build/bin dist frontend/dist
