package push

// SetMaxPending lowers the bound of readings held unfinished for a test,
// and returns what puts it back.
func SetMaxPending(n int) (restore func()) {
	old := maxPending
	maxPending = n
	return func() { maxPending = old }
}
