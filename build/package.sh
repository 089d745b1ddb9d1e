#!/usr/bin/env bash
# Makes Spark's release files in dist/, versioned from `git describe`:
#   spark-desktop_<v>_linux_amd64.tar.gz   the app, spark and spark-engine
#   spark-desktop_<v>_amd64.deb             the same, with a desktop entry and icon
#   spark-desktop_<v>_windows_amd64.exe     the app for Windows
#   spark-desktop_<v>_windows_amd64_setup.exe  its NSIS installer
#   spark-engine_<v>_linux_{amd64,arm64}    the engine alone, for a family server
# macOS builds need a Mac: .github/workflows/macos.yml makes the .app and .dmg.
#
# Usage: build/package.sh [--linux-only]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

linux_only=0
[ "${1:-}" = "--linux-only" ] && linux_only=1

version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
version=${version#v}
# A Debian version must start with a digit.
if grep -qE '^[0-9]+\.[0-9]+' <<<"$version"; then
  debversion=$version
else
  debversion="0.0.0~git${version}"
fi
ldflags="-s -w -X github.com/sparkfamily/spark/version.Version=${version}"

dist=dist
rm -rf "$dist"
mkdir -p "$dist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "package: version ${version}"

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

if [ $linux_only -eq 0 ]; then
  # The Windows app and its NSIS installer. The version shown in the file's
  # properties comes from wails.json's info.productVersion, set for this build.
  cp wails.json "$work/wails.json.orig"
  trap 'cp "$work/wails.json.orig" wails.json; rm -rf "$work"' EXIT
  # Windows wants X.Y.Z (Wails adds the fourth part): from a release tag
  # (v1.2.3...) when there is one, else the productVersion wails.json has.
  winversion=$(grep -oE '^[0-9]+\.[0-9]+\.[0-9]+' <<<"$version" || true)
  [ -n "$winversion" ] || winversion=$(node -p 'require("./wails.json").info.productVersion')
  node -e '
    const fs = require("fs"); const j = JSON.parse(fs.readFileSync("wails.json", "utf8"));
    j.info = j.info || {}; j.info.productVersion = process.argv[1];
    fs.writeFileSync("wails.json", JSON.stringify(j, null, 2) + "\n");' "$winversion"
  wails build -platform windows/amd64 -nsis -trimpath -skipbindings -o spark-desktop.exe -ldflags "$ldflags"
  cp "$work/wails.json.orig" wails.json
  cp build/bin/spark-desktop.exe "$dist/spark-desktop_${version}_windows_amd64.exe"
  installer=$(ls build/bin/*installer*.exe 2>/dev/null | head -1)
  [ -n "$installer" ] && cp "$installer" "$dist/spark-desktop_${version}_windows_amd64_setup.exe"
fi

echo "package: made"
ls -la "$dist"
