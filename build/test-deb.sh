#!/usr/bin/env bash
# Installs the .deb made by build/package.sh with dpkg, checks what it put in
# place, runs the two commands it carries, and removes it again. First it
# installs an older version (the same package stamped 0.0.0~older), captures
# a photo with its `spark import`, and then checks that the capture is still
# there after this .deb is installed over it, and after it is removed.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls dist/spark-desktop_*_amd64.deb | head -1)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
tmp=$(mktemp -d)
trap '$sudo dpkg -r spark-desktop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
# Spark's data folder for this test only: $XDG_DATA_HOME/Spark.
export XDG_DATA_HOME="$tmp/data"

# The older version.
dpkg-deb -R "$deb" "$tmp/older"
sed -i 's/^Version: .*/Version: 0.0.0~older/' "$tmp/older/DEBIAN/control"
dpkg-deb -Znone --root-owner-group --build "$tmp/older" "$tmp/older.deb" >/dev/null
$sudo dpkg -i "$tmp/older.deb" >/dev/null
[ "$(dpkg-query -W -f='${Version}' spark-desktop)" = 0.0.0~older ]
spark import outbox/photo/internal/jpeg/testdata/video-001.jpeg
id=$(spark outbox --json | sed -nE 's/^ *"moment_id": "([0-9A-Z]+)".*/\1/p' | head -1)
[ -n "$id" ] || { echo "deb: the older version's capture is not in the outbox"; exit 1; }

# This version over it.
$sudo dpkg -i "$deb"
[ "$(dpkg-query -W -f='${Version}' spark-desktop)" != 0.0.0~older ]
dpkg -L spark-desktop | grep -E 'bin/|\.desktop$|apps/spark.png$'
spark --version
spark-engine --version
test -x /usr/bin/spark-desktop
grep -q '^Exec=spark-desktop' /usr/share/applications/spark.desktop
if command -v desktop-file-validate >/dev/null; then desktop-file-validate /usr/share/applications/spark.desktop; fi
spark moments | grep "^$id " >/dev/null || { echo "deb: the capture $id made by the older version is gone after the upgrade"; spark moments; exit 1; }
echo "deb: the capture made by 0.0.0~older is still there after the upgrade"

$sudo dpkg -r spark-desktop >/dev/null
[ -n "$(find "$XDG_DATA_HOME/Spark/outbox/files" -name original)" ] ||
  { echo "deb: removing the package removed the capture"; exit 1; }
echo "deb: installed over an older version (capture kept), ran spark and spark-engine, removed (capture kept)"
