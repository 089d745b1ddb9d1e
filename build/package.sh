#!/usr/bin/env bash
# Makes Spark's release files in dist/, versioned from `git describe`:
#   spark-desktop_<v>_linux_amd64.tar.gz   the app, spark and spark-engine
#   spark-desktop_<v>_amd64.deb             the same, with a desktop entry and icon
#   spark-desktop_<v>_windows_amd64.exe     the app for Windows
#   spark-desktop_<v>_windows_amd64_setup.exe  its NSIS setup, with spark.exe and
#                                           spark-engine.exe in bin\ (tested by
#                                           build/test-setup-exe.sh under Wine)
#   spark-engine_<v>_linux_{amd64,arm64}    the engine alone, for a family server
# macOS builds need a Mac: .github/workflows/macos.yml makes the .app and .dmg.
#
# Usage: build/package.sh [--linux-only | --windows-only]
# (--windows-only: the Windows files alone, as the windows workflow makes them
# on Windows, with Git Bash, MinGW's windres and NSIS.)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

linux_only=0 windows_only=0
[ "${1:-}" = "--linux-only" ] && linux_only=1
[ "${1:-}" = "--windows-only" ] && windows_only=1

version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
version=${version#v}
# A Debian version must start with a digit.
if grep -qE '^[0-9]+\.[0-9]+' <<<"$version"; then
  debversion=$version
else
  debversion="0.0.0~git${version}"
fi
ldflags="-s -w -X github.com/sparkfamily/spark/internal/version.Version=${version}"

dist=dist
rm -rf "$dist"
mkdir -p "$dist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "package: version ${version}"

if [ $windows_only -eq 0 ]; then
  # Pure-Go commands.
  for target in linux/amd64 linux/arm64; do
    os=${target%/*}; arch=${target#*/}
    mkdir -p "$work/$os-$arch"
    for cmd in spark-engine spark; do
      GOOS=$os GOARCH=$arch CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$work/$os-$arch/$cmd" "./cmd/$cmd"
    done
    cp "$work/$os-$arch/spark-engine" "$dist/spark-engine_${version}_${os}_${arch}"
  done

  # The desktop app for Linux.
  wails build -clean -platform linux/amd64 -trimpath -o spark-desktop -ldflags "$ldflags"
  app=build/bin/spark-desktop

  # .tar.gz
  tarroot="$work/spark-desktop_${version}_linux_amd64"
  mkdir -p "$tarroot"
  cp "$app" "$work/linux-amd64/spark" "$work/linux-amd64/spark-engine" README.md "$tarroot/"
  cp build/appicon.png "$tarroot/spark.png"
  cp build/linux/spark.desktop "$tarroot/"
  tar -C "$work" -czf "$dist/spark-desktop_${version}_linux_amd64.tar.gz" "spark-desktop_${version}_linux_amd64"

  # .deb
  deb="$work/deb"
  mkdir -p "$deb/DEBIAN" "$deb/usr/bin" "$deb/usr/share/applications" "$deb/usr/share/doc/spark-desktop"
  install -m 0755 "$app" "$deb/usr/bin/spark-desktop"
  install -m 0755 "$work/linux-amd64/spark" "$deb/usr/bin/spark"
  install -m 0755 "$work/linux-amd64/spark-engine" "$deb/usr/bin/spark-engine"
  install -m 0644 build/linux/spark.desktop "$deb/usr/share/applications/spark.desktop"
  for size in 48 128 256 512; do
    dir="$deb/usr/share/icons/hicolor/${size}x${size}/apps"
    mkdir -p "$dir"
    if command -v convert >/dev/null; then
      convert build/appicon.png -resize "${size}x${size}" "$dir/spark.png"
    else
      cp build/appicon.png "$dir/spark.png"
    fi
  done
  install -m 0644 README.md "$deb/usr/share/doc/spark-desktop/README.md"
  size_kb=$(du -sk "$deb/usr" | cut -f1)
  sed -e "s/@VERSION@/${debversion}/" -e "s/@SIZE@/${size_kb}/" build/linux/control > "$deb/DEBIAN/control"
  dpkg-deb --root-owner-group --build "$deb" "$dist/spark-desktop_${debversion}_amd64.deb" >/dev/null
fi

if [ $linux_only -eq 0 ]; then
  # The Windows app, its two commands and the NSIS setup that installs the
  # three (build/windows/installer/project.nsi). Every file, and the setup's
  # uninstall entry, carries this build's own version, the one --version
  # prints. Windows also wants four numbers for a file's version: X.Y.Z from
  # a release tag and the commits since it, else 0.0.0 and the commits in all.
  if [[ $version =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)(-([0-9]+)-g)? ]]; then
    winnum="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}.${BASH_REMATCH[5]:-0}"
  else
    winnum="0.0.0.$(( $(git rev-list --count HEAD 2>/dev/null || echo 0) % 65536 ))"
  fi
  echo "package: Windows version ${version} (${winnum})"

  # wails.json's productVersion (a placeholder) and info.json's file version
  # are set for this build only, and put back when it ends.
  cp wails.json "$work/wails.json.orig"
  cp build/windows/info.json "$work/info.json.orig"
  sysos=(cmd/spark/zz_spark_version_windows_amd64.syso cmd/spark-engine/zz_spark_version_windows_amd64.syso)
  trap 'cp "$work/wails.json.orig" wails.json; cp "$work/info.json.orig" build/windows/info.json; rm -f "${sysos[@]}"; rm -rf "$work"' EXIT
  node -e '
    const fs = require("fs");
    const [version, winnum] = process.argv.slice(1);
    const j = JSON.parse(fs.readFileSync("wails.json", "utf8"));
    j.info = j.info || {}; j.info.productVersion = version;
    fs.writeFileSync("wails.json", JSON.stringify(j, null, 2) + "\n");
    const i = JSON.parse(fs.readFileSync("build/windows/info.json", "utf8"));
    i.fixed = { ...i.fixed, file_version: winnum, product_version: winnum };
    for (const t of Object.values(i.info)) t.FileVersion = version;
    fs.writeFileSync("build/windows/info.json", JSON.stringify(i, null, 2) + "\n");' "$version" "$winnum"

  # spark.exe and spark-engine.exe, with the same properties: a version
  # resource compiled by MinGW's windres, linked in as a .syso that is only
  # there during this build.
  cmddir="$(pwd)/build/bin/windows-cmd"
  mkdir -p "$cmddir"
  # makensis on Windows reads Windows paths (Git Bash's pwd -W).
  cmddir_nsis=$(cd "$cmddir" && { pwd -W 2>/dev/null || pwd; })
  windres=$(command -v x86_64-w64-mingw32-windres || command -v windres || true)
  [ -n "$windres" ] || { echo "package: MinGW-w64's windres is missing (scripts/setup.sh installs it)" >&2; exit 1; }
  winnum_commas=${winnum//./,}
  for cmd in spark spark-engine; do
    case $cmd in
      spark) desc="Spark command" ;;
      spark-engine) desc="Spark engine" ;;
    esac
    cat > "$work/$cmd.rc" <<RC
#include <winver.h>
1 VERSIONINFO
FILEVERSION ${winnum_commas}
PRODUCTVERSION ${winnum_commas}
FILEOS VOS_NT_WINDOWS32
FILETYPE VFT_APP
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904b0"
    BEGIN
      VALUE "CompanyName", "Spark family"
      VALUE "FileDescription", "${desc}"
      VALUE "FileVersion", "${version}"
      VALUE "InternalName", "${cmd}"
      VALUE "LegalCopyright", "Spark family"
      VALUE "OriginalFilename", "${cmd}.exe"
      VALUE "ProductName", "Spark"
      VALUE "ProductVersion", "${version}"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
RC
    "$windres" -O coff -o "cmd/$cmd/zz_spark_version_windows_amd64.syso" "$work/$cmd.rc"
    GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$cmddir/$cmd.exe" "./cmd/$cmd"
    rm -f "cmd/$cmd/zz_spark_version_windows_amd64.syso"
  done

  # The build's values for project.nsi (see its head).
  cat > build/windows/installer/spark_build.nsh <<NSH
; Written by build/package.sh for this build; makensis -DNAME=VALUE wins.
!ifndef INFO_PRODUCTVERSION
  !define INFO_PRODUCTVERSION "${version}"
!endif
!ifndef SPARK_FILEVERSION
  !define SPARK_FILEVERSION "${winnum}"
!endif
!ifndef SPARK_CMD_DIR
  !define SPARK_CMD_DIR "${cmddir_nsis}"
!endif
NSH

  wails build -platform windows/amd64 -nsis -trimpath -skipbindings -o spark-desktop.exe -ldflags "$ldflags"
  cp "$work/wails.json.orig" wails.json
  cp "$work/info.json.orig" build/windows/info.json
  cp build/bin/spark-desktop.exe "$dist/spark-desktop_${version}_windows_amd64.exe"
  installer=$(ls build/bin/*installer*.exe 2>/dev/null | head -1)
  [ -n "$installer" ] || { echo "package: wails made no Windows setup (is makensis installed?)" >&2; exit 1; }
  cp "$installer" "$dist/spark-desktop_${version}_windows_amd64_setup.exe"
fi

echo "package: made"
ls -la "$dist"
