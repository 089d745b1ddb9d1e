#!/usr/bin/env bash
# The Moments screen's first paint from the replica, in the real window
# (issue 8, Performance: under 300 ms with 10,000 moments). It seeds a
# family engine with 10,000 moments, serves it with spark-engine serve on
# 127.0.0.1, syncs a fresh app data folder from it with spark sync, points
# that folder's settings at the family engine, stops the family engine
# (offline is the point), then starts the real window on it three times
# under Xvfb. The figure is the window's own mark: when the Moments screen
# has drawn its first tiles with moments in them (frontend/src/moments.ts),
# the app logs "moments first paint" with the time since it started; the
# script prints each start, the median of the three and the load average.
# A figure, not a pass/fail test.
#
# Usage: e2e/replica-paint.sh [--no-build]   (needs xvfb, x11-utils)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

. e2e/window-lib.sh
build_window "${1:-}"

n=${REPLICA_MOMENTS:-10000}
runs=3
tmp=$(mktemp -d)
xvfb_pid=""
app_pid=""
serve_pid=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/spark-engine" ./cmd/spark-engine || { echo "FAIL: build spark-engine"; exit 1; }
go build -o "$tmp/spark" ./cmd/spark || { echo "FAIL: build spark"; exit 1; }

# The family engine: an app data folder whose engine/ holds the moments.
go run ./e2e/cmd/seedfolder -data "$tmp/family" -moments "$n" || { echo "FAIL: seeding $n moments"; exit 1; }
fam="$tmp/family/engine"
token=$("$tmp/spark-engine" token add replica-paint --data "$fam" 2>"$tmp/token.log") || { echo "FAIL: spark-engine token add"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
"$tmp/spark-engine" serve --data "$fam" --listen "127.0.0.1:$port" >"$tmp/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 100); do curl -fsS "$url/v1/health" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "$url/v1/health" >/dev/null || { cat "$tmp/serve.log"; echo "FAIL: the family engine did not answer"; exit 1; }

# This computer: its copy of the family engine, and settings choosing it.
data="$tmp/app"
sync_start=$(date +%s)
"$tmp/spark" sync --data "$data" --engine "$url" --token "$token" >"$tmp/sync.log" 2>&1 || { cat "$tmp/sync.log"; echo "FAIL: spark sync"; exit 1; }
sync_s=$(( $(date +%s) - sync_start ))
umask 077
printf '{"engine":"remote","remote_url":"%s","remote_token":"%s"}\n' "$url" "$token" >"$data/settings.json"

# Offline: the family engine stops.
kill -TERM "$serve_pid"
for _ in $(seq 100); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$serve_pid" 2>/dev/null && { echo "FAIL: the family engine did not stop"; exit 1; }
serve_pid=""
curl -fsS "$url/v1/health" >/dev/null 2>&1 && { echo "FAIL: the family engine still answers"; exit 1; }

start_xvfb "$tmp/xvfb.log"

# ms turns a Go duration as slog writes it (834ms, 3.115s) into milliseconds.
ms() { case "$1" in *ms) echo "${1%ms}" ;; *s) awk -v v="${1%s}" 'BEGIN { printf "%.0f", v * 1000 }' ;; *) echo "?" ;; esac; }
paints=()
doms=()
for run in $(seq "$runs"); do
  log="$tmp/app-$run.log"
  SPARK_DATA="$data" "$bin" >"$log" 2>&1 &
  app_pid=$!
  for _ in $(seq 300); do grep -q 'msg="moments first paint"' "$log" && break; kill -0 "$app_pid" 2>/dev/null || break; sleep 0.1; done
  line=$(grep -m1 'msg="moments first paint"' "$log" || true)
  [ -n "$line" ] || { cat "$log"; echo "FAIL: start $run: no first paint of Moments within 30 s"; exit 1; }
  paint=$(sed 's/.*msg="moments first paint" since_start=\([^ ]*\).*/\1/' <<<"$line")
  tiles=$(sed 's/.* tiles=\([0-9]*\).*/\1/' <<<"$line")
  from=$(sed 's/.* from="\([^"]*\)".*/\1/' <<<"$line")
  dom=$(grep -m1 -o 'msg="window ready" since_start=[^ ]*' "$log" | sed 's/.*=//' || true)
  [ "$from" = "the family engine's copy on this computer" ] || { echo "FAIL: start $run: the tiles came from $from"; exit 1; }
  p_ms=$(ms "$paint")
  d_ms=$(ms "${dom:-?}")
  since_dom="?"
  [ "$d_ms" != "?" ] && since_dom=$((p_ms - d_ms))
  paints+=("$p_ms")
  doms+=("$since_dom")
  echo "start $run: moments first paint since_start=${p_ms}ms (since DOM ready ${since_dom}ms; DOM ready at ${d_ms}ms), $tiles tiles"
  kill -TERM "$app_pid"
  for _ in $(seq 100); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$app_pid" 2>/dev/null && { echo "FAIL: start $run: the app did not exit on SIGTERM"; exit 1; }
  app_pid=""
done

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
echo "replica: $n moments, synced in ${sync_s}s ($(grep -o 'at seq.*' "$tmp/sync.log")); the family engine stopped before the window started"
echo "Moments first paint from the replica, median of $runs starts: $(median "${paints[@]}") ms since the app started, $(median "${doms[@]}") ms since DOM ready (target under 300 ms)"
echo "load:$(uptime | sed 's/.*load average/ load average/')"
