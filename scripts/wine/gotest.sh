#!/usr/bin/env bash
# Runs the Go tests of every package that needs no window, cross-compiled for
# windows/amd64 (CGO_ENABLED=0, no race detector) and run under Wine in the
# private prefix of setup-prefix.sh, one package at a time, with -short. Prints
# `go test -json` on stdout, for scripts/gotest-report.mjs; arguments go to
# go test (for example -run); package patterns among them (./outbox) replace
# the list below. `gotest.sh --list` prints that list, one a line, and
# nothing else: the GitHub Windows job runs the same packages on real
# Windows.
#
# Go's os.RemoveAll deletes with a call Wine 8.0 lacks, so the test binaries
# are built with -overlay adding deleteat_fallback_windows.go to Go's
# internal/syscall/windows: Go then uses its own fallback, the call older
# Windows and FAT32 volumes get. Tests that depend on what still differs say
# so when they skip.
set -euo pipefail

PACKAGES=(
  ./engine/... ./outbox/... ./app/replica/... ./cmd/spark ./cmd/spark-engine
  ./internal/atomicfile/... ./internal/datadir/... ./internal/dirlock/... ./internal/diskfull/...
  ./internal/endsession/... ./internal/retry/... ./internal/sqlitedb/...
)
if [ "${1-}" = --list ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=env.sh
. "$here/env.sh"
cd "$root"

tmp=$(mktemp -d)
trap 'wineserver -k >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
printf '{"Replace":{"%s":"%s"}}\n' \
  "$(go env GOROOT)/src/internal/syscall/windows/zz_spark_wine_deleteat_fallback.go" \
  "$here/deleteat_fallback_windows.go" > "$tmp/overlay.json"

# One wine server for the whole run, instead of one started per binary, and
# Wine's own background processes (services.exe, winedevice.exe, ...)
# started now with no terminal or pipe: started by the first test binary,
# they would hold its output pipe open after it exits, and go test would
# wait for it.
wineserver -p >/dev/null 2>&1 </dev/null || true
"$WINE" cmd.exe /c exit >/dev/null 2>&1 </dev/null || true

args=() pkgs=()
for a in "$@"; do
  case $a in ./*) PACKAGES=() ;; esac
done
for a in "$@"; do
  case $a in ./*) PACKAGES+=("$a") ;; *) args+=("$a") ;; esac
done
for p in "${PACKAGES[@]}"; do
  # A package named here that this tree lacks is left out, not an error.
  go list "$p" >/dev/null 2>&1 && pkgs+=("$p")
done

export CGO_ENABLED=0 GOOS=windows GOARCH=amd64
# First the test binaries, built as go test builds (a build error shows in
# the run after, in its JSON).
go test -count=1 -run '^$' -tags sparkwine -overlay "$tmp/overlay.json" -exec /bin/true "${pkgs[@]}" >/dev/null 2>&1 || true
# Then the tests under Wine, one package at a time, with -short: the same
# tests and faults, with the smaller batches their -short sizes give (the
# race step runs the full sizes on Linux). Two packages at a time doubled
# the work of Wine's one server and slowed the builds beside it (CI: 844 s
# against 596 s).
go test -json -count=1 -short -p 1 -timeout 4m -tags sparkwine -overlay "$tmp/overlay.json" \
  -exec "$here/go-wine-exec" "${args[@]}" "${pkgs[@]}"
