// Package endsession lets the desktop app stop cleanly when Windows ends
// the session (log off, restart, shut down).
//
// A console program hears of that through its console (Go's os/signal
// reports it as SIGTERM), but the app is a windowed program with no
// console: Windows tells it by sending WM_QUERYENDSESSION and then
// WM_ENDSESSION to its top-level windows, and may end the process as soon
// as WM_ENDSESSION has been answered. Wails does not answer it, so Watch
// opens a hidden top-level window of its own, on its own thread, and runs
// the app's shutdown (drain stopped between steps, engine log synced and
// closed) inside WM_ENDSESSION, before answering. Elsewhere Watch does
// nothing: there the session's end comes as SIGTERM.
package endsession
