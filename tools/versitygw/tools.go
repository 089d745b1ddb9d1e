//go:build tools

// Package tools pins versitygw, the S3 server engine/backup's tests run
// against; scripts/versitygw.sh builds it from this module, so the
// product's go.mod stays clean.
package tools

import _ "github.com/versity/versitygw/cmd/versitygw"
