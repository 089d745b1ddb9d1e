#!/usr/bin/env bash
# Installs what Spark needs on Debian 12, in two measures:
#
#   scripts/setup.sh --run   what building and running the app need (make run):
#                            the GTK and WebKitGTK headers of the Wails window,
#                            a C compiler, the frontend's npm packages from the
#                            lock file, and the Wails CLI
#   scripts/setup.sh         all of that, and what the tests need (make test,
#                            CI): Xvfb and Chromium for the UI tests, NSIS for
#                            the Windows installer, libvips-tools as the
#                            small-copy benchmark's peer, tesseract-ocr and
#                            its English data as the words benchmark's peer
#                            (spark-bench words), Wine and MinGW-w64
#                            for the Windows test run and the Windows setup's,
#                            curl for its health check, dpkg-dev for the .deb,
#                            Caddy, the reverse proxy of the README's
#                            family-engine recipe, which the tests run in front
#                            of an engine (internal/caddytest; Debian's package
#                            is not started here), and the private Wine prefix
#                            the Windows tests run in (scripts/wine/)
#
# It is idempotent: a second run only checks.
#
# No wine32 (Debian's i386 Wine): the Windows setup is a 64-bit program
# (build/windows/installer/project.nsi), so 64-bit Wine installs it, also on
# a virtual machine whose kernel runs no 32-bit x86 code (ia32_emulation off,
# as on the one this was written on: there wine32's i386 loader fails with
# "Exec format error" and Wine's WoW64 mode faults).
set -euo pipefail
cd "$(dirname "$0")/.."

only_run=false
case "${1:-}" in
  --run) only_run=true ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--run]" >&2; exit 2 ;;
esac

# What building and running the app need.
APT_PACKAGES=(
  build-essential pkg-config
  libgtk-3-dev libwebkit2gtk-4.0-dev
)
# What the tests and the packages need besides.
$only_run || APT_PACKAGES+=(
  xvfb xauth x11-utils xdotool imagemagick
  chromium
  nsis
  libvips-tools
  tesseract-ocr tesseract-ocr-eng
  dpkg-dev
  wine wine64 gcc-mingw-w64-x86-64-win32
  curl
  caddy
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

for tool in go node npm; do
  command -v "$tool" >/dev/null || { echo "setup: $tool is missing: install Go 1.26+ and Node 20+ first" >&2; exit 1; }
done

# The frontend's packages, exactly as the lock file says.
if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
  echo "setup: npm ci (frontend)"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi

bash scripts/install-wails.sh

$only_run && exit 0

# The Windows tests run under Wine in a prefix of their own.
bash scripts/wine/setup-prefix.sh
