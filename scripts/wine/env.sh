# Sourced by the scripts beside it: the private Wine prefix Spark's Windows
# tests run in, and how to call Wine quietly and without a window.
# SPARK_WINEPREFIX moves the prefix (default: ~/.cache/spark/wineprefix).
export WINEPREFIX="${SPARK_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/spark/wineprefix}"
export WINEARCH=win64
export WINEDEBUG=-all
# No Mono or Gecko installer prompts, and no window: the tests are console
# programs.
export WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
if command -v wine64 >/dev/null 2>&1; then
  WINE=$(command -v wine64)
elif [ -x /usr/lib/wine/wine64 ]; then
  WINE=/usr/lib/wine/wine64
else
  WINE=$(command -v wine || true)
fi
export WINE
