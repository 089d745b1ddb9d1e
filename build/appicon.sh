#!/bin/sh
# Draws Spark's app icon (build/appicon.png, 1024x1024): a cream four-pointed
# spark with two small twinkles on a warm round orange background. Wails makes
# the Windows .ico and the macOS .icns from this file at build time.
set -eu
cd "$(dirname "$0")"
convert -size 1024x1024 xc:none \
  \( -size 1024x1024 radial-gradient:'#ffb347-#e8590c' \) \
  \( -size 1024x1024 xc:none -fill white -draw 'circle 512,512 512,40' \) \
  -delete 0 -compose CopyOpacity -composite \
  -fill '#fff4e0' -stroke '#fff4e0' -strokewidth 6 \
  -draw 'path "M 512,170 C 540,420 604,484 854,512 C 604,540 540,604 512,854 C 484,604 420,540 170,512 C 420,484 484,420 512,170 Z"' \
  -draw 'path "M 760,236 C 768,296 784,312 844,320 C 784,328 768,344 760,404 C 752,344 736,328 676,320 C 736,312 752,296 760,236 Z"' \
  -draw 'path "M 290,690 C 296,734 306,744 350,750 C 306,756 296,766 290,810 C 284,766 274,756 230,750 C 274,744 284,734 290,690 Z"' \
  -strip PNG32:appicon.png
