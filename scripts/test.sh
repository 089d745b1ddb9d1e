#!/usr/bin/env bash
# Runs every test of Spark desktop, as CI does: formatting and vet, the Go
# tests under the race detector, the same Go tests built for Windows and run
# under Wine (every package but the window), the TypeScript type check and
# unit tests, the browser end-to-end tests, the fuzz targets for a short time
# each, the cross-builds, the Wails builds for Linux and Windows, and the
# Linux package installed with dpkg, the Windows setup installed under Wine.
# It goes on after a failing step, so one
# run shows every problem, and closes with one summary line of all tests
# counted.
#
# Usage: scripts/test.sh [--quick]   (--quick: Go checks and tests only)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="$(go env GOPATH)/bin:$PATH"

quick=0
[ "${1:-}" = "--quick" ] && quick=1
FUZZTIME=${FUZZTIME:-5s}

counts=$(mktemp)
echo '{"pass":0,"fail":0,"skip":0}' > "$counts"
failed_steps=()
start_all=$(date +%s)

step() { # step NAME COMMAND...
  local name=$1; shift
  local t0=$(date +%s)
  echo
  echo "=== $name"
  if "$@"; then
    echo "--- $name: ok ($(( $(date +%s) - t0 ))s)"
  else
    echo "--- $name: FAILED ($(( $(date +%s) - t0 ))s)"
    failed_steps+=("$name")
  fi
}

# add_counts PASS FAIL SKIP: adds a runner's own counts to the total.
add_counts() {
  node -e '
    const fs = require("fs"); const f = process.argv[1];
    const c = JSON.parse(fs.readFileSync(f, "utf8"));
    c.pass += +process.argv[2]; c.fail += +process.argv[3]; c.skip += +process.argv[4];
    fs.writeFileSync(f, JSON.stringify(c));' "$counts" "$1" "$2" "$3"
}

# add_counts_of FILE: adds the counts a background step wrote to FILE.
add_counts_of() {
  add_counts $(node -p 'const c = JSON.parse(require("fs").readFileSync(process.argv[1])); `${c.pass} ${c.fail} ${c.skip}`' "$1")
}

# node_tests COMMAND...: runs a node:test suite and counts its summary lines.
node_tests() {
  local log
  log=$(mktemp)
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local p f s
  p=$(grep -aE '^(ℹ|#) pass [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
  f=$(grep -aE '^(ℹ|#) fail [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
  s=$(grep -aE '^(ℹ|#) skipped [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
  add_counts "${p:-0}" "${f:-0}" "${s:-0}"
  if [ "$rc" -eq 0 ] && [ -z "$p" ]; then
    echo "no test summary was printed: counting that as a failure"
    add_counts 0 1 0
    return 1
  fi
  rm -f "$log"
  return "$rc"
}

ts_unit() { (cd frontend && npm test --silent); }
e2e() { (cd frontend && npm run --silent e2e); }

frontend_build() {
  # The Wails bindings are generated from the Go code, then the UI is built
  # into frontend/dist, which main.go embeds.
  wails generate module >/dev/null && (cd frontend && npm run --silent build)
}

gofmt_check() {
  local bad
  bad=$(git ls-files -co --exclude-standard '*.go' | grep -v '/wailsjs/' | xargs -r gofmt -l)
  [ -z "$bad" ] || { echo "gofmt would change:"; echo "$bad"; return 1; }
}

# versitygw, the S3 server engine/backup's tests run against: built once
# from its tools module into the cache folder (minutes the first time, a
# check after), exported for the Go tests, which skip without it.
versitygw_build() {
  SPARK_VERSITYGW=$(bash scripts/versitygw.sh) && export SPARK_VERSITYGW && echo "$SPARK_VERSITYGW"
}

# Four test binaries at once on two cores: most of the tests wait (on
# back-offs, child processes, timers, the loopback). At go test's default
# of one per core the step took 845 s; the whole of it is about 680 s of
# CPU, so two cores were less than half busy.
go_tests() {
  go test -race -p 4 -count=1 -json -timeout 12m ./... | node scripts/gotest-report.mjs "$counts"
}

# The Go tests of every package but the window, cross-compiled for
# windows/amd64 and run under Wine in the private prefix that scripts/setup.sh
# makes (scripts/wine/), one package at a time; counted like the others.
wine_tests() {
  bash scripts/wine/setup-prefix.sh &&
    bash scripts/wine/gotest.sh | node scripts/gotest-report.mjs "$counts"
}

# In a full run the Wine tests go beside the steps after the browser tests:
# the fuzzing, the builds and the installers' tests; one after the other, the
# two halves took 7 minutes each. (Beside the browser tests, whose waits
# are for a person's pace, they slowed those past their limit.) The Wine
# run writes its output and counts apart, and its step prints them when it
# ends.
wine_start() {
  wine_log=$(mktemp) wine_counts=$(mktemp) wine_t0=$(date +%s)
  echo '{"pass":0,"fail":0,"skip":0}' >"$wine_counts"
  (
    bash scripts/wine/setup-prefix.sh &&
      bash scripts/wine/gotest.sh | node scripts/gotest-report.mjs "$wine_counts"
  ) >"$wine_log" 2>&1 </dev/null &
  wine_pid=$!
  echo "the Wine tests started in the background; their output comes in their own step"
}

wine_wait() {
  wait "$wine_pid"
  local rc=$?
  cat "$wine_log"
  echo "(the Wine run took $(($(date +%s) - wine_t0))s from its start, beside the steps before this one)"
  add_counts_of "$wine_counts"
  rm -f "$wine_log" "$wine_counts"
  return "$rc"
}

# The tests of resources, without the race detector, whose shadow memory
# and slowness (five to ten times) they would measure instead: the
# off-site copy's SIGKILL drill at the issue's size (2,000 moments, 5
# kills; the race step runs a fifth of it, as -short does), the memory of
# hostile tiles, what a page allocates and how soon a search is given up
# at its budget; the drawing of the words bench's photos, which runs
# in one goroutine; and spark-bench's runs of its benches (60 s under the
# detector, 111 s in CI's race step, 5 s here), whose packages race-check
# their own code. The tests other than the drill skip under the
# detector (racebuild.Heavy); in the race step they took 3 minutes of
# the packages' time. They run in the background beside the Wine
# tests and the steps after the browser tests (the drill mostly waits: 38
# s of CPU in its 73), and their step prints their output when they end.
resources_start() {
  res_log=$(mktemp) res_counts=$(mktemp) res_t0=$(date +%s)
  echo '{"pass":0,"fail":0,"skip":0}' >"$res_counts"
  (
    go test -count=1 -json -timeout 10m \
      -run '^(TestServeBackup_SIGKILL|TestMediaHandler_TileMemory|TestPageBudget|TestSearch_Budget|TestGenerate_.*|TestTesseractReadsALetter|TestEngineBench|TestSmallCopyBench|TestCaptureBench|TestReplicaBench)$' \
      ./cmd/spark-engine ./app ./engine/server ./engine/mirror ./internal/wordsphotos ./cmd/spark-bench |
      node scripts/gotest-report.mjs "$res_counts"
  ) >"$res_log" 2>&1 </dev/null &
  res_pid=$!
  echo "the resource tests started in the background; their output comes in their own step"
}

resources_wait() {
  wait "$res_pid"
  local rc=$?
  cat "$res_log"
  echo "(the resource tests took $(($(date +%s) - res_t0))s from their start, beside the steps before this one)"
  add_counts_of "$res_counts"
  rm -f "$res_log" "$res_counts"
  return "$rc"
}

# One target for $FUZZTIME. Go 1.26's fuzz coordinator can end a run that
# found nothing with a bare "context deadline exceeded" when the time runs out
# while a worker is busy (golang/go#75804, fixed in Go 1.27). Such a run, with
# no failing input written and no other failure, is run once more; a real
# finding always writes its input under testdata/fuzz and fails at once.
fuzz_one() {
  local pkg=$1 name=$2 try
  for try in 1 2; do
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg" >/tmp/fuzz.$$ 2>&1 && return 0
    if grep -q 'Failing input written' /tmp/fuzz.$$ ||
      ! grep -q 'context deadline exceeded' /tmp/fuzz.$$ ||
      grep -qE 'panic:|_test\.go:[0-9]+:' /tmp/fuzz.$$; then
      return 1
    fi
    echo "fuzz $name: the run ended on Go's deadline race with nothing found (golang/go#75804); running it once more"
  done
  return 1
}

fuzz_targets() {
  local rc=0 file pkg name
  while IFS=: read -r file name; do
    pkg="./$(dirname "$file")"
    name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"$name")
    echo "fuzz $pkg $name for $FUZZTIME"
    if fuzz_one "$pkg" "$name"; then
      add_counts 1 0 0
    else
      cat /tmp/fuzz.$$; add_counts 0 1 0; rc=1
    fi
  done < <(git grep -nE '^func Fuzz[A-Za-z0-9_]*\(' -- '*_test.go' | cut -d: -f1,3)
  rm -f /tmp/fuzz.$$
  return $rc
}

cross_builds() {
  local rc=0 target
  for target in linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64; do
    echo "CGO_ENABLED=0 $target: engine, outbox, client, photo, spark-engine, spark"
    GOOS=${target%/*} GOARCH=${target#*/} CGO_ENABLED=0 \
      go build -trimpath -o /dev/null ./engine/... ./outbox/... ./internal/... ./cmd/spark-engine ./cmd/spark || rc=1
  done
  return $rc
}

# The Wails builds for Linux and Windows (with the NSIS installer) are made
# by the packaging script; the .deb is then installed and run.
packages() {
  if bash build/package.sh && bash build/test-deb.sh; then add_counts 1 0 0; else add_counts 0 1 0; return 1; fi
}

# The Windows setup that step made, installed silently under Wine in a
# private prefix, run, installed over an older version and uninstalled.
setup_exe() {
  if bash build/test-setup-exe.sh; then add_counts 1 0 0; else add_counts 0 1 0; return 1; fi
}

# The real app under Xvfb: the window appears and paints, the local engine
# answers, SIGTERM closes it cleanly; it saves a screenshot.
window() {
  if bash e2e/window-test.sh --no-build; then add_counts 1 0 0; else add_counts 0 1 0; return 1; fi
}

step "gofmt" gofmt_check
step "setup.sh: make run installs only what running needs" bash scripts/setup_test.sh
step "actionlint (.github/workflows)" go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 .github/workflows/ci.yml .github/workflows/macos.yml
if [ $quick -eq 0 ]; then
  step "frontend build (bindings, tsc, vite)" frontend_build
else
  mkdir -p frontend/dist && [ -e frontend/dist/index.html ] || echo '<!doctype html>' > frontend/dist/index.html
fi
step "versitygw (the S3 server of the backup tests)" versitygw_build
step "go test -race" go_tests
# After the race step, vet reads the packages it compiled (-race is a build
# flag to vet too): a vet of its own before it compiled every package once
# more, 2m40s of CPU against 32s for the engine's packages. The only files
# -race leaves out are the tests' one-line !race flags.
step "go vet" go vet -race ./...
if [ $quick -eq 0 ]; then
  step "TypeScript unit tests" node_tests ts_unit
  step "browser end-to-end tests" node_tests e2e
  step "go test under Wine (windows/amd64): start" wine_start
  step "resource tests without the race detector: start" resources_start
  step "fuzz targets ($FUZZTIME each)" fuzz_targets
  step "cross-builds (CGO_ENABLED=0)" cross_builds
  step "wails build linux/amd64 + windows/amd64 (NSIS), .deb installed with dpkg" packages
  step "the Windows setup under Wine: installed, run, upgraded, uninstalled" setup_exe
  step "the real window under Xvfb (local engine answers, screenshot)" window
  step "go test under Wine (windows/amd64)" wine_wait
  step "resource tests without the race detector (SIGKILL drill, memory, budgets)" resources_wait
else
  step "go test under Wine (windows/amd64)" wine_tests
fi

echo
echo "=== summary ($(( $(date +%s) - start_all ))s)"
if [ ${#failed_steps[@]} -gt 0 ]; then
  printf 'failed step: %s\n' "${failed_steps[@]}"
fi
node -e '
  const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`tests: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped`);' "$counts"
rm -f "$counts"
[ ${#failed_steps[@]} -eq 0 ]
