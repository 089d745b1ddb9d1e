#!/usr/bin/env bash
# Builds versitygw, the S3 server engine/backup's tests run against
# (internal/versitygw), once, from its own tools module (tools/versitygw,
# so the product's go.mod stays clean), into the user's cache folder, and
# prints the binary's path. The pinned version is in the binary's name:
# a new pin builds a new one; the same pin only checks. A link named
# versitygw beside it is where the tests look when SPARK_VERSITYGW is
# unset.
#
# Usage: export SPARK_VERSITYGW=$(bash scripts/versitygw.sh)
set -euo pipefail
cd "$(dirname "$0")/../tools/versitygw"
ver=$(go list -m -f '{{.Version}}' github.com/versity/versitygw)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/spark/bin
bin=$cache/versitygw-$ver
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  echo "versitygw.sh: building versitygw $ver into $cache (once; minutes)" >&2
  t0=$(date +%s)
  go build -trimpath -o "$bin.tmp" github.com/versity/versitygw/cmd/versitygw
  mv "$bin.tmp" "$bin"
  echo "versitygw.sh: built in $(($(date +%s) - t0))s" >&2
fi
ln -sfn "$(basename "$bin")" "$cache/versitygw"
echo "$bin"
