#!/usr/bin/env bash
# Makes the private Wine prefix that Spark's Windows tests run in (see
# env.sh for where) and puts in it the stand-in bcryptprimitives.dll built
# from processprng.c, which Go's runtime needs and Wine 8.0 lacks. The DLL
# goes into this prefix only and is never shipped. Idempotent: a second run
# only checks. Needs Debian's wine, wine64 and gcc-mingw-w64-x86-64-win32
# (scripts/setup.sh installs them).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
. "$here/env.sh"

[ -n "$WINE" ] || { echo "wine setup: Wine is not installed" >&2; exit 1; }
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "wine setup: x86_64-w64-mingw32-gcc is not installed" >&2; exit 1; }

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "wine setup: making the prefix $WINEPREFIX"
  mkdir -p "$(dirname "$WINEPREFIX")"
  "$WINE" wineboot --init >/dev/null 2>&1 || true
  wineserver -w
  [ -f "$WINEPREFIX/system.reg" ] || { echo "wine setup: wineboot made no prefix in $WINEPREFIX" >&2; exit 1; }
fi

# Wine's null display driver: windows can be made (a hidden one watches for
# the end of the session, see internal/endsession/) with no X server.
if ! grep -q '"Graphics"="null"' "$WINEPREFIX/user.reg" 2>/dev/null; then
  echo "wine setup: the null display driver"
  "$WINE" reg add 'HKCU\Software\Wine\Drivers' /v Graphics /d null /f >/dev/null 2>&1
  wineserver -w
fi

dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$dll" ] || [ "$here/processprng.c" -nt "$dll" ]; then
  echo "wine setup: building the stand-in bcryptprimitives.dll (ProcessPrng)"
  tmp=$(mktemp -d)
  x86_64-w64-mingw32-gcc -O2 -shared -nostdlib -e DllMain -o "$tmp/bcryptprimitives.dll" \
    "$here/processprng.c" -lbcrypt -lkernel32
  mv "$tmp/bcryptprimitives.dll" "$dll"
  rm -rf "$tmp"
fi

# A Go program must start and get random bytes: that is what the DLL is for.
stamp="$WINEPREFIX/.spark-checked-$(go env GOVERSION)"
if [ ! -f "$stamp" ] || [ "$dll" -nt "$stamp" ]; then
  tmp=$(mktemp -d)
  cat > "$tmp/main.go" <<'GO'
package main

import (
	"crypto/rand"
	"fmt"
)

func main() { fmt.Println("random:", len(rand.Text()) > 0) }
GO
  (cd "$tmp" && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 GOFLAGS= go build -o check.exe main.go)
  out=$("$here/go-wine-exec" "$tmp/check.exe" 2>&1 | tr -d '\r') || true
  rm -rf "$tmp"
  [ "$out" = "random: true" ] || { echo "wine setup: a Go program does not run under Wine: $out" >&2; exit 1; }
  touch "$stamp"
  echo "wine setup: a Go windows/amd64 program runs under $("$WINE" --version) in $WINEPREFIX"
fi
