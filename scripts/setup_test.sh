#!/usr/bin/env bash
# Checks what scripts/setup.sh would install, without installing anything:
# it runs a copy of the script against stand-ins for apt-get and
# dpkg-query (every package missing) and for the Wails and Wine steps,
# and reads what they were asked for. `make run` (setup.sh --run) must ask
# for what building and running need and nothing only the tests need
# (issue 36: a fresh `make run` installed Wine, MinGW, NSIS and Chromium);
# `make test` (setup.sh) must ask for all of it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/tree/scripts/wine" "$tmp/tree/frontend/node_modules" "$tmp/bin"
cp "$repo/scripts/setup.sh" "$tmp/tree/scripts/"
touch "$tmp/tree/frontend/package-lock.json" && touch "$tmp/tree/frontend/node_modules/.package-lock.json"
log="$tmp/log"
printf '#!/bin/sh\necho "wails $*" >>%s\n' "$log" >"$tmp/tree/scripts/install-wails.sh"
printf '#!/bin/sh\necho "wine-prefix $*" >>%s\n' "$log" >"$tmp/tree/scripts/wine/setup-prefix.sh"
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/dpkg-query"
printf '#!/bin/sh\necho "apt-get $*" >>%s\n' "$log" >"$tmp/bin/apt-get"
printf '#!/bin/sh\necho "sudo $*" >>%s\n"$@"\n' "$log" >"$tmp/bin/sudo"
chmod +x "$tmp/bin/"*

fail=0
run() { : >"$log"; PATH="$tmp/bin:$PATH" bash "$tmp/tree/scripts/setup.sh" "$@" >/dev/null; cat "$log"; }

asked=$(run --run)
for want in libgtk-3-dev libwebkit2gtk-4.0-dev build-essential "wails"; do
  grep -qw -- "$want" <<<"$asked" || { echo "setup.sh --run did not ask for $want:"; echo "$asked"; fail=1; }
done
for never in wine wine64 gcc-mingw-w64-x86-64-win32 nsis chromium xvfb caddy libvips-tools tesseract-ocr tesseract-ocr-eng wine-prefix; do
  if grep -qw -- "$never" <<<"$asked"; then echo "setup.sh --run (make run) asked for $never, which only the tests need:"; echo "$asked"; fail=1; fi
done

asked=$(run)
for want in libgtk-3-dev wine64 gcc-mingw-w64-x86-64-win32 nsis chromium xvfb caddy tesseract-ocr tesseract-ocr-eng wails wine-prefix; do
  grep -qw -- "$want" <<<"$asked" || { echo "setup.sh (make test) did not ask for $want:"; echo "$asked"; fail=1; }
done

if bash "$tmp/tree/scripts/setup.sh" --bogus >/dev/null 2>&1; then echo "setup.sh --bogus succeeded"; fail=1; fi
[ $fail -eq 0 ] && echo "setup_test: make run asks for what running needs only; make test for everything"
exit $fail
