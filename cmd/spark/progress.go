package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"
)

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress draws a one-line bar on a terminal and prints plain lines
// otherwise (for logs and scripts). It is safe for concurrent use.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	what  string
	total int64
	n     int64
	last  string
	drawn bool
}

func newProgress(e env, what string) *progress {
	return &progress{w: e.stdout, tty: e.isTerminal(e.stdout), what: what}
}

func (p *progress) setTotal(n int64) {
	p.mu.Lock()
	p.total = n
	p.draw()
	p.mu.Unlock()
}

func (p *progress) addTotal(n int64) {
	p.mu.Lock()
	p.total += n
	p.draw()
	p.mu.Unlock()
}

// add counts n more items done, naming the latest.
func (p *progress) add(n int64, name string) {
	p.mu.Lock()
	p.n += n
	p.last = name
	p.draw()
	p.mu.Unlock()
}

// status changes the text after the bar (terminal only).
func (p *progress) status(s string) {
	p.mu.Lock()
	p.last = s
	p.draw()
	p.mu.Unlock()
}

// line prints a message above the bar (or alone, off a terminal).
func (p *progress) line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
	p.draw()
}

func (p *progress) draw() {
	if !p.tty {
		return
	}
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = int(min(p.n, p.total) * width / p.total)
	}
	last := p.last
	if len(last) > 40 {
		last = "..." + last[len(last)-37:]
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s [%s%s] %d/%d %s", p.what, strings.Repeat("#", fill), strings.Repeat(" ", width-fill), p.n, p.total, last)
	p.drawn = true
}

// done ends the bar's line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\n")
		p.drawn = false
	}
}
