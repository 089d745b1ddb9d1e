# Shared by the scripts that run the real window under Xvfb
# (window-test.sh, replica-paint.sh, window-bench.sh, words-memory.sh);
# sourced from the repository's root.

# build_window builds the real app with wails (unless the script was given
# --no-build) and sets bin to it.
build_window() {
  if [ "${1:-}" != "--no-build" ]; then
    wails build -o spark-desktop -ldflags "-X github.com/sparkfamily/spark/internal/version.Version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)" >/tmp/spark-wails-build.log 2>&1 ||
      { tail -30 /tmp/spark-wails-build.log; echo "FAIL: wails build"; exit 1; }
  fi
  bin=build/bin/spark-desktop
  [ -x "$bin" ] || { echo "FAIL: no $bin"; exit 1; }
}

# start_xvfb starts Xvfb (1280x860, or the size in $2) on a free display,
# its log in $1, sets xvfb_pid and exports DISPLAY, and waits until it
# answers. With a folder in $3, Xvfb keeps its screen there as a file
# (Xvfb_screen0), which windowbench reads its frames from.
start_xvfb() {
  local disp=99
  while [ -e "/tmp/.X11-unix/X$disp" ] || [ -e "/tmp/.X$disp-lock" ]; do disp=$((disp + 1)); done
  Xvfb ":$disp" -screen 0 "${2:-1280x860}x24" -nolisten tcp ${3:+-fbdir "$3"} >"$1" 2>&1 &
  xvfb_pid=$!
  export DISPLAY=":$disp"
  for _ in $(seq 50); do xwininfo -root >/dev/null 2>&1 && break; sleep 0.1; done
}
