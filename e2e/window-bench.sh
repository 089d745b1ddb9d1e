#!/usr/bin/env bash
# The window beside a bare Wails v2 app (issue 23). It builds the real app
# (wails build) and, in the same run with the same CLI, the bare app of the
# CLI's own vanilla template; then, under Xvfb in a D-Bus session (WebKitGTK
# stalls without one), e2e/cmd/windowbench starts them in turn, 3 times
# each, and prints for both the cold start from process start to the first
# painted frame, when the screen settled, and the PSS and RSS of the whole
# process tree 8 s after the paint: each start, the medians, the ratios and
# the load average. Spark opens a data folder seeded with a few moments,
# then again one with 10,000 (e2e/cmd/seedfolder -moments), each start on a
# fresh copy of it. A third app, bare-light, is the bare template with
# Spark's main_linux.go (its WebKitGTK settings): the least any Wails v2
# window with those settings costs. A fourth, static, is Spark's first frame
# with no script at all: e2e/testdata/first-frame.html (the DOM Spark's
# window drew for 24 moments) with Spark's stylesheet and the tiles Spark
# kept for the 24-moment folder, in the bare template with Spark's window
# size, background and main_linux.go: the least a first frame with Spark's
# content costs in a Wails v2 window, whatever the code behind it. The
# pictures column is when a frame first showed the tiles' pictures
# (windowbench -pictures). A figure, not a pass/fail test.
#
# Usage: e2e/window-bench.sh [--no-build]   (needs xvfb, x11-utils, dbus, npm)
#   WINDOW_RUNS=3 WINDOW_MOMENTS=10000 WINDOW_SETTLE=8s
#   WINDOW_WARM=1: Spark starts once on each folder before the measured
#   starts (not counted), so its tiles are kept there as for a returning
#   user; 0 measures each start making its tiles
#   WINDOW_COPY_SIZE=320x320: the seeded moments' small copies; 1600x1200
#   is a camera photo's, what a real folder holds (10,000 of them take
#   about 1.5 GB)
#   WINDOW_ALSO="name=path ...": more builds of Spark started in turn with
#   the two, on the same folders (a setting measured against another)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

. e2e/window-lib.sh
build_window "${1:-}"

runs=${WINDOW_RUNS:-3}
n=${WINDOW_MOMENTS:-10000}
settle=${WINDOW_SETTLE:-8s}
warm=${WINDOW_WARM:-1}
tmp=$(mktemp -d)
xvfb_pid=""
cleanup() {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The bare app: the CLI's vanilla template, built by the same CLI.
wails init -n bare -t vanilla -d "$tmp/bare" -q >"$tmp/bare-init.log" 2>&1 ||
  { cat "$tmp/bare-init.log"; echo "FAIL: wails init"; exit 1; }
(cd "$tmp/bare" && wails build -o bare >"$tmp/bare-build.log" 2>&1) ||
  { tail -30 "$tmp/bare-build.log"; echo "FAIL: wails build of the bare app"; exit 1; }
bare="$tmp/bare/build/bin/bare"
# bare-light: the same template with Spark's WebKitGTK settings.
cp -r "$tmp/bare" "$tmp/bare-light"
rm -rf "$tmp/bare-light/build/bin"
cp main_linux.go "$tmp/bare-light/"
(cd "$tmp/bare-light" && wails build -o bare-light >"$tmp/bare-light-build.log" 2>&1) ||
  { tail -30 "$tmp/bare-light-build.log"; echo "FAIL: wails build of bare-light"; exit 1; }
light="$tmp/bare-light/build/bin/bare-light"

go build -o "$tmp/windowbench" ./e2e/cmd/windowbench || { echo "FAIL: build windowbench"; exit 1; }
# A frame with more colours than this shows the tiles' pictures: without
# them Spark's first frame has about 3,000, with them over 10,000.
pictures=8000

# Spark's folders: a few moments (a returning user), and 10,000.
size=${WINDOW_COPY_SIZE:-320x320}
small="$tmp/small"
go run ./e2e/cmd/seedfolder -data "$small" -moments 24 -copy-size "$size" >/dev/null || { echo "FAIL: seeding 24 moments"; exit 1; }
big="$tmp/big"
go run ./e2e/cmd/seedfolder -data "$big" -moments "$n" -copy-size "$size" >/dev/null || { echo "FAIL: seeding $n moments"; exit 1; }

# static: Spark's first frame as a page with no script, its pictures the
# tiles Spark keeps for the 24-moment folder (a start of Spark, unmeasured,
# makes them first).
static_app() {
  dbus-run-session -- "$tmp/windowbench" -fb "$tmp/Xvfb_screen0" -runs 0 -warm spark="$bin:$small" >"$tmp/static-warm.log" 2>&1 ||
    { cat "$tmp/static-warm.log"; echo "FAIL: a start of Spark to keep its tiles"; exit 1; }
  local tiles=("$small"/tiles/*.jpg) d="$tmp/static" i
  [ -e "${tiles[0]}" ] || { echo "FAIL: Spark kept no tiles in $small/tiles"; exit 1; }
  cp -r "$tmp/bare" "$d"
  rm -rf "$d/build/bin" "$d/frontend/dist"
  mkdir -p "$d/frontend/public/t"
  for i in $(seq 0 23); do cp "${tiles[$((i % ${#tiles[@]}))]}" "$d/frontend/public/t/$i.jpg"; done
  cp frontend/dist/assets/index-*.css "$d/frontend/public/spark.css" ||
    { echo "FAIL: no stylesheet in frontend/dist (build the app first)"; exit 1; }
  cp e2e/testdata/first-frame.html "$d/frontend/index.html"
  cp main_linux.go "$d/"
  # Spark's window: its size and background (main.go).
  sed -i -e 's/Width:  1024,/Width:  1180,/' -e 's/Height: 768,/Height: 800,/' \
    -e 's/BackgroundColour: &options.RGBA{R: 27, G: 38, B: 54, A: 1},/BackgroundColour: \&options.RGBA{R: 250, G: 246, B: 240, A: 255},/' "$d/main.go"
  grep -q 'Width:  1180,' "$d/main.go" && grep -q 'R: 250, G: 246, B: 240' "$d/main.go" ||
    { echo "FAIL: the bare template's window options changed; static is not Spark's window"; exit 1; }
  (cd "$d" && wails build -o static >"$tmp/static-build.log" 2>&1) ||
    { tail -30 "$tmp/static-build.log"; echo "FAIL: wails build of static"; exit 1; }
  static="$d/build/bin/static"
}

# also DATA: WINDOW_ALSO's builds, each on DATA.
also() {
  local a
  for a in ${WINDOW_ALSO:-}; do printf '%s:%s ' "$a" "$1"; done
}

# Xvfb keeps its frame buffer in a file (-fbdir), which windowbench reads
# to see each frame without a process or an X round trip.
start_xvfb "$tmp/xvfb.log" 1280x860 "$tmp"
static_app
echo "wails $(wails version | head -1), WebKitGTK $(pkg-config --modversion webkit2gtk-4.0 2>/dev/null || echo '?'), $(nproc) cores"
dbus-run-session -- "$tmp/windowbench" -fb "$tmp/Xvfb_screen0" -runs "$runs" -settle "$settle" -warm="$([ "$warm" = 1 ] && echo true || echo false)" -pictures "$pictures" \
  -title "Spark (24 moments, $size copies) beside the bare Wails app" \
  spark="$bin:$small" $(also "$small") static="$static" bare="$bare" bare-light="$light"
dbus-run-session -- "$tmp/windowbench" -fb "$tmp/Xvfb_screen0" -runs "$runs" -settle "$settle" -warm="$([ "$warm" = 1 ] && echo true || echo false)" -pictures "$pictures" \
  -title "Spark ($n moments, $size copies) beside the bare Wails app" \
  spark="$bin:$big" $(also "$big") static="$static" bare="$bare" bare-light="$light"
