#!/usr/bin/env bash
# The window's memory after it has read the words in photos (issue 37):
# Spark on a folder of photos it has not read, beside Spark on the same
# folder with Words in photos off, started in turn under Xvfb in a D-Bus
# session (e2e/cmd/windowbench). The memory (PSS and RSS of the whole
# process tree) is read WORDS_SETTLE after the first paint: long enough
# for the reader to read every photo and for its worker to stop, 30 s
# after its last read, so the figure is the window's idle footprint once
# the words are read. Each start runs on a fresh copy of the folder; the
# script counts the moment.words ops each start's engine logged, so a
# run that read nothing is said. A figure, not a pass/fail test; the
# issue's goal is the PSS within 5% of the window without words.
#
# Usage: e2e/words-memory.sh [--no-build]   (needs xvfb, x11-utils, dbus, npm)
#   WORDS_RUNS=3 WORDS_MOMENTS=24 WORDS_SETTLE=90s
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

. e2e/window-lib.sh
build_window "${1:-}"

runs=${WORDS_RUNS:-3}
n=${WORDS_MOMENTS:-24}
settle=${WORDS_SETTLE:-90s}
tmp=$(mktemp -d)
xvfb_pid=""
cleanup() {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/windowbench" ./e2e/cmd/windowbench || { echo "FAIL: build windowbench"; exit 1; }
words="$tmp/words"
go run ./e2e/cmd/seedfolder -data "$words" -moments "$n" >/dev/null || { echo "FAIL: seeding $n moments"; exit 1; }
off="$tmp/off"
cp -a "$words" "$off"
# The same folder with Words in photos off (Settings), as settings.json
# keeps the choice.
printf '{\n  "engine": "local",\n  "words_lang": "off"\n}\n' >"$off/settings.json"

start_xvfb "$tmp/xvfb.log" 1280x860 "$tmp"

mkdir -p "$tmp/kept"
echo "WebKitGTK $(pkg-config --modversion webkit2gtk-4.0 2>/dev/null || echo '?'), $(nproc) cores"
dbus-run-session -- "$tmp/windowbench" -fb "$tmp/Xvfb_screen0" -runs "$runs" -settle "$settle" -warm=false -keep "$tmp/kept" \
  -title "Spark on $n photos without words: reading them, beside Words in photos off" \
  words="$bin:$words" off="$bin:$off"
for d in "$tmp"/kept/*; do
  read=$( (grep -ao 'moment\.words' "$d/engine/ops.log" || true) | wc -l)
  echo "  $(basename "$d"): $read of $n photos' words kept by its engine"
done
