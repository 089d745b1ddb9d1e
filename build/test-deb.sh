#!/usr/bin/env bash
# Installs the .deb made by build/package.sh with dpkg, checks what it put in
# place, runs the two commands it carries, and removes it again.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls dist/spark-desktop_*_amd64.deb | head -1)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo dpkg -i "$deb"
trap '$sudo dpkg -r spark-desktop >/dev/null' EXIT
dpkg -L spark-desktop | grep -E 'bin/|\.desktop$|apps/spark.png$'
spark --version
spark-engine --version
test -x /usr/bin/spark-desktop
grep -q '^Exec=spark-desktop' /usr/share/applications/spark.desktop
if command -v desktop-file-validate >/dev/null; then desktop-file-validate /usr/share/applications/spark.desktop; fi
echo "deb: installed, ran spark and spark-engine, removed"
