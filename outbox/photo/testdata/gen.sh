#!/bin/sh
# Makes the few test pictures that Go cannot encode itself (WebP, HEIC),
# with ImageMagick 6 (Debian: imagemagick, libheif1). Run by `go generate`
# in outbox/photo/; the results are committed, so the tests need no ImageMagick.
#
# Each is 128x96 with four coloured quadrants, so a test can tell whether a
# picture came out upright: red top left, green top right, blue bottom
# left, white bottom right. (Not smaller: for a 64x48 HEIC the WebAssembly
# libheif pads the chroma rows beyond what gen2brain/heic v0.4.5 expects.)
set -eu
cd "$(dirname "$0")"
im=convert-im6.q16
$im -size 128x96 xc:white \
	-fill '#ff0000' -draw 'rectangle 0,0 63,47' \
	-fill '#00ff00' -draw 'rectangle 64,0 127,47' \
	-fill '#0000ff' -draw 'rectangle 0,48 63,95' \
	quadrants.png
$im quadrants.png -define webp:lossless=true quadrants_lossless.webp
$im quadrants.png -quality 90 quadrants_lossy.webp
$im quadrants.png -quality 90 quadrants.heic
rm quadrants.png
