#!/bin/sh
# Builds the Wails CLI v2.9.2 into $(go env GOPATH)/bin/wails.
# `go install github.com/wailsapp/wails/v2/cmd/wails@v2.9.2` fails on Go 1.26 because
# its pinned golang.org/x/tools is too old, so this builds it in a throwaway module
# with a current x/tools. It never touches the project's go.mod.
set -eu
WAILS_VERSION=${WAILS_VERSION:-v2.9.2}
XTOOLS_VERSION=${XTOOLS_VERSION:-v0.52.0}
out="$(go env GOPATH)/bin/wails"
if [ -x "$out" ] && "$out" version 2>/dev/null | grep -q "$WAILS_VERSION"; then
	echo "wails $WAILS_VERSION already at $out"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init wailscli >/dev/null 2>&1
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "github.com/wailsapp/wails/v2/cmd/wails"
GO
go get "github.com/wailsapp/wails/v2@$WAILS_VERSION" "golang.org/x/tools@$XTOOLS_VERSION"
go mod tidy
mkdir -p "$(dirname "$out")"
go build -o "$out" github.com/wailsapp/wails/v2/cmd/wails
echo "built $("$out" version) at $out"
