#!/usr/bin/env bash
# Takes a picture of every screen of the real Spark window under Xvfb, in
# one colour scheme: Moments, Recently deleted, a moment with Pippa's
# reading, the photo viewer, Add photos, Phrases, Outbox, Settings (its
# top, and its Off-site copy section) and search results. Called
# by e2e/window-test.sh (which starts Xvfb, seeds DATA with photos read by a
# fake Pippa, and runs this once in light and once in dark); it needs
# xdotool, and drives the window with the keys a person would use (Alt+1 to
# Alt+5 open the tabs, Enter opens a tile, Escape closes) and a click on
# the photo.
#
# SCALE=2 takes the pictures at 200% (GDK_SCALE=2: every CSS pixel is two
# on the screen), on a screen twice the size, into NAME-SCHEME-200.png.
#
# Usage: [SCALE=2] e2e/window-tour.sh BIN DATA OUT light|dark [empty]
set -euo pipefail
bin=$1 data=$2 out=$3 scheme=$4
S=${SCALE:-1}
suffix=""
if [ "$S" != 1 ]; then
  export GDK_SCALE=$S
  suffix=-$((S * 100))
fi
command -v xdotool >/dev/null || { echo "window tour: no xdotool, skipped"; exit 0; }
mkdir -p "$out"
tmp=$(mktemp -d)
app_pid=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Dark: GTK's dark variant, which WebKitGTK gives the page as
# prefers-color-scheme: dark.
export XDG_CONFIG_HOME="$tmp/config"
mkdir -p "$XDG_CONFIG_HOME/gtk-3.0"
if [ "$scheme" = dark ]; then
  printf '[Settings]\ngtk-application-prefer-dark-theme=1\n' >"$XDG_CONFIG_HOME/gtk-3.0/settings.ini"
  export GTK_THEME=Adwaita:dark
fi

rm -f "$data/engine-address"
SPARK_DATA="$data" "$bin" >"$tmp/app.log" 2>&1 &
app_pid=$!
for _ in $(seq 150); do [ -s "$data/engine-address" ] && break; sleep 0.1; done
sleep 5 # the first page, small copies and readings drawn

# The window opens at 1180x800, centred on the 1280x860 screen (at SCALE,
# both S times as large, and every point of it S times as far).
X=$((50 * S)) Y=$((30 * S))
shot() {
  import -window root png:- | convert png:- -crop $((1180 * S))x$((800 * S))+$X+$Y +repage -strip "$out/$1-$scheme$suffix.png"
  echo "window tour: $out/$1-$scheme$suffix.png"
}
key() { xdotool key --clearmodifiers "$@"; sleep "${PAUSE:-1.2}"; }
click() { xdotool mousemove $((X + S * $1)) $((Y + S * $2)) click 1; sleep "${PAUSE:-1.2}"; }

# Focus the window: a click on the status bar, where nothing reacts.
click 900 790
key alt+2
# A fresh data folder (mode "empty"): Moments with nothing in it yet, and
# its "Add photos" button.
if [ "${5:-}" = empty ]; then
  shot moments-empty
  kill -TERM "$app_pid"
  for _ in $(seq 100); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.1; done
  app_pid=""
  exit 0
fi
shot moments
# By the date added: this session's photos side by side (the README's picture).
click 1012 99
shot moments-added
click 890 99
# Recently deleted, the link beside the order.
click 665 99
shot deleted
key Escape
key alt+2
key Return
sleep 1
shot moment
# The photo sits at the left of the moment dialog, under its title.
click 330 180
sleep 2 # the original
shot viewer
key Escape
key Escape
key alt+1
shot capture
key alt+3
shot phrases
key alt+4
shot outbox
key alt+5
shot settings
# The Off-site copy section, lower in Settings: the wheel, as a person
# would scroll to it.
xdotool mousemove $((X + S * 950)) $((Y + S * 420)) click --repeat 6 --delay 60 5
sleep 1
shot settings-offsite
key ctrl+f
xdotool type --delay 40 "letter"
key Return
shot search

kill -TERM "$app_pid"
for _ in $(seq 100); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.1; done
app_pid=""
