//go:build !windows

package outbox

import (
	"errors"
	"syscall"
)

func isQuotaErr(err error) bool { return errors.Is(err, syscall.EDQUOT) }
