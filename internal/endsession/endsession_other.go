//go:build !windows

package endsession

// Watch does nothing outside Windows, where the session's end comes as
// SIGTERM; stop does nothing either.
func Watch(onEnd func()) (stop func(), err error) { return func() {}, nil }
