package endsession

import (
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

var (
	procFindWindowW  = user32.NewProc("FindWindowW")
	procSendMessageW = user32.NewProc("SendMessageW")
	procIsWindow     = user32.NewProc("IsWindow")
)

func findWindow(t *testing.T) uintptr {
	t.Helper()
	name, _ := syscall.UTF16PtrFromString(ClassName)
	h, _, _ := procFindWindowW.Call(uintptr(unsafe.Pointer(name)), 0)
	if h == 0 {
		t.Fatal("no end-of-session window")
	}
	return h
}

// TestWatch sends the hidden window what Windows sends at log off: it
// agrees to WM_QUERYENDSESSION, runs the shutdown inside WM_ENDSESSION
// (done before SendMessage returns, as Windows may end the process right
// after), and only once.
func TestWatch(t *testing.T) {
	var calls atomic.Int32
	stop, err := Watch(func() {
		time.Sleep(50 * time.Millisecond) // a shutdown takes a moment
		calls.Add(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h := findWindow(t)
	if r, _, _ := procSendMessageW.Call(h, wmQueryEndSession, 0, 0); r != 1 {
		t.Errorf("WM_QUERYENDSESSION answered %d; want 1 (go ahead)", r)
	}
	// The session does not end after all (another program said no).
	procSendMessageW.Call(h, wmEndSession, 0, 0)
	if n := calls.Load(); n != 0 {
		t.Fatalf("shutdown ran %d times on WM_ENDSESSION(FALSE)", n)
	}
	procSendMessageW.Call(h, wmEndSession, 1, 0)
	if n := calls.Load(); n != 1 {
		t.Fatalf("shutdown ran %d times by the time WM_ENDSESSION returned; want 1", n)
	}
	procSendMessageW.Call(h, wmEndSession, 1, 0)
	if n := calls.Load(); n != 1 {
		t.Errorf("shutdown ran %d times; want once", n)
	}
	stop()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if r, _, _ := procIsWindow.Call(h); r == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the window is still there after stop")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
