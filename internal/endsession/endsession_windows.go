package endsession

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

const (
	wmDestroy         = 0x0002
	wmClose           = 0x0010
	wmQueryEndSession = 0x0011
	wmEndSession      = 0x0016
)

var (
	user32               = syscall.NewLazyDLL("user32.dll")
	kernel32             = syscall.NewLazyDLL("kernel32.dll")
	procRegisterClassExW = user32.NewProc("RegisterClassExW")
	procCreateWindowExW  = user32.NewProc("CreateWindowExW")
	procDefWindowProcW   = user32.NewProc("DefWindowProcW")
	procGetMessageW      = user32.NewProc("GetMessageW")
	procDispatchMessageW = user32.NewProc("DispatchMessageW")
	procPostMessageW     = user32.NewProc("PostMessageW")
	procPostQuitMessage  = user32.NewProc("PostQuitMessage")
	procGetModuleHandleW = kernel32.NewProc("GetModuleHandleW")
)

type wndClassEx struct {
	size       uint32
	style      uint32
	wndProc    uintptr
	clsExtra   int32
	wndExtra   int32
	instance   uintptr
	icon       uintptr
	cursor     uintptr
	background uintptr
	menuName   *uint16
	className  *uint16
	iconSm     uintptr
}

type msg struct {
	hwnd    uintptr
	message uint32
	wParam  uintptr
	lParam  uintptr
	time    uint32
	pt      struct{ x, y int32 }
	private uint32
}

// ClassName is the window class of Watch's hidden windows, for tests
// (FindWindow) and for people looking at a window list.
const ClassName = "SparkEndSession"

var (
	registerOnce sync.Once
	registerErr  error
	wndProcPtr   = syscall.NewCallback(wndProc)

	mu       sync.Mutex
	watchers = map[uintptr]*watcher{} // by window handle
)

type watcher struct {
	onEnd func()
	once  sync.Once
	ended atomic.Bool
}

func wndProc(hwnd, m, wParam, lParam uintptr) uintptr {
	switch uint32(m) {
	case wmQueryEndSession:
		return 1 // Spark never stands in the way of logging off
	case wmEndSession:
		if wParam != 0 {
			mu.Lock()
			w := watchers[hwnd]
			mu.Unlock()
			if w != nil {
				// Windows may end the process once this returns: the
				// shutdown runs here, to its end.
				w.once.Do(func() { w.ended.Store(true); w.onEnd() })
			}
		}
		return 0
	case wmDestroy:
		mu.Lock()
		delete(watchers, hwnd)
		mu.Unlock()
		procPostQuitMessage.Call(0)
		return 0
	}
	r, _, _ := procDefWindowProcW.Call(hwnd, m, wParam, lParam)
	return r
}

func register() error {
	registerOnce.Do(func() {
		inst, _, _ := procGetModuleHandleW.Call(0)
		name, _ := syscall.UTF16PtrFromString(ClassName)
		wc := wndClassEx{wndProc: wndProcPtr, instance: inst, className: name}
		wc.size = uint32(unsafe.Sizeof(wc))
		if r, _, err := procRegisterClassExW.Call(uintptr(unsafe.Pointer(&wc))); r == 0 {
			registerErr = fmt.Errorf("register the end-of-session window class: %w", err)
		}
	})
	return registerErr
}

// Watch opens a hidden top-level window that runs onEnd, once, when
// Windows ends the session, before Windows may end the process. stop
// closes the window (onEnd is not run then).
func Watch(onEnd func()) (stop func(), err error) {
	if err := register(); err != nil {
		return nil, err
	}
	created := make(chan error, 1)
	var hwnd uintptr
	go func() {
		// The window's messages come to the thread that made it.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		name, _ := syscall.UTF16PtrFromString(ClassName)
		inst, _, _ := procGetModuleHandleW.Call(0)
		// A plain, never shown top-level window: message-only windows
		// get no broadcasts, and WM_ENDSESSION is one.
		h, _, cerr := procCreateWindowExW.Call(0, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(name)),
			0, 0, 0, 0, 0, 0, 0, inst, 0)
		if h == 0 {
			created <- fmt.Errorf("open the end-of-session window: %w", cerr)
			return
		}
		mu.Lock()
		watchers[h] = &watcher{onEnd: onEnd}
		mu.Unlock()
		hwnd = h
		created <- nil
		var m msg
		for {
			r, _, _ := procGetMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0)
			if int32(r) <= 0 { // WM_QUIT, or an error
				return
			}
			procDispatchMessageW.Call(uintptr(unsafe.Pointer(&m)))
		}
	}()
	if err := <-created; err != nil {
		return nil, err
	}
	var stopOnce sync.Once
	return func() {
		stopOnce.Do(func() { procPostMessageW.Call(hwnd, wmClose, 0, 0) })
	}, nil
}
