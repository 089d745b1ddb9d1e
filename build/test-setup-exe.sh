#!/usr/bin/env bash
# Installs the Windows setup made by build/package.sh under Wine, the way a
# person would get it, checks what it put in place, uninstalls it, and then
# installs it over an older version. It runs in a private copy of the Wine
# prefix scripts/wine/setup-prefix.sh makes (set to report Windows 10, which
# the setup requires), thrown away at the end. There is no internet here, so
# the setup's WebView2 download fails, as it does on an offline computer.
#
# Checks: the silent setup (/S) exits 0 and installs the window (Spark.exe),
# bin\spark.exe and bin\spark-engine.exe, no two names equal when case is
# ignored; the Start-menu shortcut; bin\ on the PATH; the uninstall entry and
# every file's properties carry the build's own version, the one
# `spark --version` prints; the installed commands run, and `spark-engine
# serve` answers /v1/health on 127.0.0.1; installing over an older version
# keeps the data in %LocalAppData%\Spark; the silent uninstaller removes the
# program, its shortcut, entry and PATH part, and leaves %LocalAppData%\Spark
# as it was.
#
# Usage: build/test-setup-exe.sh [SETUP.exe]   (default: the one in dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# shellcheck source=../scripts/wine/env.sh
. scripts/wine/env.sh
export PATH="$(go env GOPATH)/bin:$PATH"
t0=$(date +%s)

setup=${1:-$(ls dist/spark-desktop_*_windows_amd64_setup.exe 2>/dev/null | head -1)}
[ -f "$setup" ] || { echo "setup test: no Windows setup in dist/ (run build/package.sh)" >&2; exit 1; }
version=$(basename "$setup")
version=${version#spark-desktop_}
version=${version%_windows_amd64_setup.exe}

fail() { echo "setup test: FAIL: $*" >&2; exit 1; }
ok() { echo "setup test: ok: $*"; }
step() { echo "setup test: $* ($(( $(date +%s) - t0 ))s)"; }

[ -f "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ] ||
  bash scripts/wine/setup-prefix.sh
tmp=$(mktemp -d)
serve_pid=""
cleanup() {
  [ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null || true
  WINEPREFIX="$tmp/prefix" wineserver -k >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# scripts/test.sh runs the Wine tests in that prefix at the same time: their
# temporary folders come and go under the user's Temp, so the copy leaves
# Temp's contents out and passes over a file that goes while it reads
# (wineserver writes its registry files whole, to a new file then a rename).
mkdir -p "$tmp/prefix"
tar -C "$WINEPREFIX" --exclude='./drive_c/users/*/Temp/*' --exclude='./drive_c/users/*/AppData/Local/Temp/*' \
  --ignore-failed-read --warning=no-file-changed --warning=no-file-removed -cf - . |
  tar -C "$tmp/prefix" -xf - && st=(0 0) || st=("${PIPESTATUS[@]}")
[ "${st[0]}" -le 1 ] && [ "${st[1]}" -eq 0 ] || fail "could not copy the Wine prefix $WINEPREFIX"
export WINEPREFIX="$tmp/prefix"
w() { "$WINE" "$@" 2>/dev/null </dev/null | tr -d '\r'; return "${PIPESTATUS[0]}"; }
wineserver -p >/dev/null 2>&1 </dev/null || true
"$WINE" winecfg -v win10 >/dev/null 2>&1 </dev/null
w cmd /c ver | grep 'Windows 10\.' >/dev/null || fail "the prefix does not report Windows 10: $(w cmd /c ver)"
step "private prefix reporting Windows 10 at $WINEPREFIX"

progdir="$WINEPREFIX/drive_c/Program Files/Spark family/Spark"
winprog='C:\Program Files\Spark family\Spark'
uninstkey='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\Spark familySpark'
envkey='HKLM\System\CurrentControlSet\Control\Session Manager\Environment'
startmenu="$WINEPREFIX/drive_c/ProgramData/Microsoft/Windows/Start Menu/Programs/Spark.lnk"
localappdata=$(winepath -u "$(w cmd /c echo %LocalAppData%)" 2>/dev/null)
data="$localappdata/Spark"
regval() { w reg query "$1" /v "$2" | sed -nE "s/^ +$2 +REG_[A-Z_]+ +//p"; }
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16); }
props() { strings -el "$1" | grep -A1 -x "$2" | sed -n 2p; }

# 1. This build, silently, into a prefix that never had Spark.
w "$setup" /S || fail "the setup exited $?"
step "installed $(basename "$setup")"

for f in Spark.exe bin/spark.exe bin/spark-engine.exe uninstall.exe; do
  [ -f "$progdir/$f" ] || fail "Program Files lacks $f"
done
dups=$(cd "$progdir" && find . | tr '[:upper:]' '[:lower:]' | sort | uniq -d)
[ -z "$dups" ] || fail "names that are the same when case is ignored: $dups"
ok "Program Files\\Spark family\\Spark holds Spark.exe, bin\\spark.exe, bin\\spark-engine.exe, no names that collide ignoring case"

[ -f "$startmenu" ] || fail "no Start-menu shortcut at $startmenu"
ok "the Start-menu shortcut"

got=$(regval "$uninstkey" DisplayVersion)
[ "$got" = "$version" ] || fail "the uninstall entry says version '$got', the build is $version"
ok "the uninstall entry's version is $version"
for f in "$setup" "$progdir/Spark.exe" "$progdir/bin/spark.exe" "$progdir/bin/spark-engine.exe" "$progdir/uninstall.exe"; do
  for key in ProductVersion FileVersion; do
    got=$(props "$f" $key)
    [ "$got" = "$version" ] || fail "$(basename "$f")'s $key is '$got', the build is $version"
  done
done
ok "the properties of the setup, Spark.exe, spark.exe, spark-engine.exe and uninstall.exe say $version"

[ "$(w "$winprog\\bin\\spark.exe" --version)" = "spark $version" ] || fail "spark.exe --version: $(w "$winprog\\bin\\spark.exe" --version)"
w "$winprog\\bin\\spark-engine.exe" --version | grep -F "$version" >/dev/null || fail "spark-engine.exe --version: $(w "$winprog\\bin\\spark-engine.exe" --version)"
regval "$envkey" Path | tr ';' '\n' | grep -ixF "$winprog\\bin" >/dev/null || fail "bin\\ is not on the PATH: $(regval "$envkey" Path)"
wineserver -k >/dev/null 2>&1 || true # a new session reads the PATH the setup wrote
[ "$(w cmd /c spark --version)" = "spark $version" ] || fail "\`spark --version\` in a new console: $(w cmd /c spark --version)"
ok "spark.exe --version and spark-engine.exe --version print $version; bin\\ is on the PATH: \`spark --version\` runs in a new console"

[ -z "$(regval 'HKLM\SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}' pv)" ] ||
  fail "WebView2 is registered here: this run does not show the setup going on without it"
ok "the WebView2 download failed (no internet) and the setup still installed"

port=$(( 20000 + RANDOM % 20000 ))
"$WINE" "$winprog\\bin\\spark-engine.exe" serve --listen "127.0.0.1:$port" >"$tmp/serve.log" 2>&1 </dev/null &
serve_pid=$!
health=""
for _ in $(seq 1 120); do
  health=$(curl -fsS "http://127.0.0.1:$port/v1/health" 2>/dev/null) && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.5
done
grep -q '"ok": *true' <<<"$health" && grep -qF "\"$version\"" <<<"$health" ||
  fail "spark-engine.exe serve did not answer health on 127.0.0.1:$port: '$health'; $(tr -d '\r' <"$tmp/serve.log")"
kill "$serve_pid" 2>/dev/null || true
wait "$serve_pid" 2>/dev/null || true
serve_pid=""
wineserver -k >/dev/null 2>&1 || true
ok "the installed spark-engine.exe serve answered $health"

w "$winprog\\bin\\spark-engine.exe" token add setup-test >/dev/null || fail "spark-engine.exe token add"
[ -d "$data/engine" ] || fail "spark-engine wrote no data in $data"
before=$(tree_sum "$data")
step "spark-engine.exe wrote its engine and a token into %LocalAppData%\\Spark"

# 2. The silent uninstaller (it copies itself to %TEMP% and runs from there:
#    wait for the prefix's last process).
w "$winprog\\uninstall.exe" /S || fail "the uninstaller exited $?"
wineserver -w
[ ! -e "$progdir" ] || fail "the uninstaller left $(cd "$progdir" && find . | head)"
[ ! -e "$startmenu" ] || fail "the uninstaller left the Start-menu shortcut"
[ -z "$(regval "$uninstkey" DisplayVersion)" ] || fail "the uninstaller left the uninstall entry"
! regval "$envkey" Path | grep -iF 'Spark\bin' >/dev/null || fail "the uninstaller left bin\\ on the PATH: $(regval "$envkey" Path)"
[ "$(tree_sum "$data")" = "$before" ] || fail "the uninstaller changed %LocalAppData%\\Spark"
ok "the silent uninstaller removed the program, shortcut, entry and PATH part, and left %LocalAppData%\\Spark as it was"

# 3. An older version (the same script and programs, stamped 0.0.1 and made
#    uncompressed, a few seconds), its data, and this build over it.
[ -f build/windows/installer/spark_build.nsh ] && [ -f build/bin/spark-desktop.exe ] ||
  fail "build/package.sh's Windows build is not in build/ (spark_build.nsh, build/bin)"
(cd build/windows/installer && makensis -V1 -X'SetCompress off' -DINFO_PRODUCTVERSION=0.0.1 \
  -DSPARK_FILEVERSION=0.0.1.0 -DARG_WAILS_AMD64_BINARY="$root/build/bin/spark-desktop.exe" \
  -DSPARK_OUTFILE="$tmp/older-setup.exe" project.nsi >/dev/null)
w "$tmp/older-setup.exe" /S || fail "the older setup exited $?"
[ "$(regval "$uninstkey" DisplayVersion)" = 0.0.1 ] || fail "the older setup's uninstall entry: $(regval "$uninstkey" DisplayVersion)"
w "$winprog\\bin\\spark-engine.exe" token add older-test >/dev/null || fail "spark-engine.exe token add, installed by 0.0.1"
before=$(tree_sum "$data")
w "$setup" /S || fail "the setup over 0.0.1 exited $?"
got=$(regval "$uninstkey" DisplayVersion)
[ "$got" = "$version" ] || fail "after the upgrade from 0.0.1 the uninstall entry says '$got', the build is $version"
[ "$(tree_sum "$data")" = "$before" ] || fail "%LocalAppData%\\Spark changed on the upgrade"
tokens=$(w "$winprog\\bin\\spark-engine.exe" token list)
grep -q setup-test <<<"$tokens" && grep -q older-test <<<"$tokens" || fail "tokens lost on the upgrade: $tokens"
ok "the upgrade from 0.0.1 kept %LocalAppData%\\Spark byte for byte, the new spark-engine.exe reads it, the entry says $version"

echo "setup test: the Windows setup installed, uninstalled and upgraded under Wine in $(( $(date +%s) - t0 ))s"
