package endsession

import "testing"

// TestWatch_Stop: Watch and stop work on every OS, and stop may be called
// twice.
func TestWatch_Stop(t *testing.T) {
	stop, err := Watch(func() { t.Error("onEnd ran without an end of session") })
	if err != nil {
		t.Fatal(err)
	}
	stop()
	stop()
}
