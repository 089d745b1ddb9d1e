package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

func TestPassing(t *testing.T) {
	for status, want := range map[int]bool{
		100: true, 302: true, 304: true, // not resolved by the client: trouble on the way
		400: false, 401: false, 403: false, 404: false, 409: false, 413: false, 422: false,
		408: true, 425: true, 429: true,
		500: true, 502: true, 503: true, 504: true,
	} {
		if got := Passing(status); got != want {
			t.Errorf("Passing(%d) = %v, want %v", status, got, want)
		}
	}
	for status, want := range map[int]bool{401: true, 403: true, 400: false, 404: false, 500: false} {
		if got := Refused(status); got != want {
			t.Errorf("Refused(%d) = %v, want %v", status, got, want)
		}
	}
}

func TestNetwork(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"Nil", nil, false},
		{"URLError", fmt.Errorf("list: %w", &url.Error{Op: "Get", URL: "http://127.0.0.1:1", Err: errors.New("boom")}), true},
		{"OpError", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"DNS", &net.DNSError{Err: "no such host", Name: "spark.invalid"}, true},
		{"Refused", fmt.Errorf("health: %w", syscall.ECONNREFUSED), true},
		{"Reset", syscall.ECONNRESET, true},
		{"CutShort", fmt.Errorf("upload: %w", io.ErrUnexpectedEOF), true},
		{"Deadline", context.DeadlineExceeded, true},
		{"Canceled", context.Canceled, false},
		{"LocalFile", &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, false},
		{"DiskFull", fmt.Errorf("write: %w", syscall.ENOSPC), false},
		{"Other", errors.New("sqlite: database is locked"), false},
	} {
		if got := Network(tt.err); got != tt.want {
			t.Errorf("%s: Network(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"0", 0},
		{"-3", 0},
		{"99999999999999999999", 0},
		{"soon", 0},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	} {
		if got := ParseRetryAfter(tt.v, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

func TestBackoff_Wait(t *testing.T) {
	for _, tt := range []struct {
		n          int
		rnd        float64
		retryAfter time.Duration
		want       time.Duration
	}{
		{0, 0.5, 0, 500 * time.Millisecond}, // no failure yet: the first window
		{1, 0.5, 0, 500 * time.Millisecond}, // window 1s
		{2, 0.5, 0, time.Second},            // window 2s
		{3, 0.5, 0, 2 * time.Second},        // window 4s
		{20, 0.5, 0, 30 * time.Second},      // capped at 1m
		{20, 0.999, 0, 59940 * time.Millisecond},
		{1, 0, 0, 0},                                 // full jitter reaches zero
		{1, 0.5, 10 * time.Second, 10 * time.Second}, // Retry-After is a floor
		{20, 0.9, 10 * time.Second, 54 * time.Second},
	} {
		b := Backoff{Base: time.Second, Cap: time.Minute, Rand: func() float64 { return tt.rnd }}
		if got := b.Wait(tt.n, tt.retryAfter); got != tt.want {
			t.Errorf("Wait(%d, rnd %.3f, retry after %s) = %s, want %s", tt.n, tt.rnd, tt.retryAfter, got, tt.want)
		}
	}
	// No cap: the window keeps doubling.
	b := Backoff{Base: time.Second, Rand: func() float64 { return 0.5 }}
	if got := b.Wait(11, 0); got != 512*time.Second {
		t.Errorf("uncapped Wait(11) = %s, want 8m32s", got)
	}
	// The default jitter stays in the window.
	b = Backoff{Base: time.Second, Cap: time.Minute}
	for n := 1; n < 10; n++ {
		window := min(time.Second<<(n-1), time.Minute)
		if got := b.Wait(n, 0); got < 0 || got >= window {
			t.Errorf("Wait(%d) = %s, want in [0, %s)", n, got, window)
		}
	}
}

// TestBackoff_Retrying runs a retry loop on a fake clock: each attempt
// comes exactly its back-off after the last, Retry-After included.
func TestBackoff_Retrying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Backoff{Base: time.Second, Cap: 10 * time.Second, Rand: func() float64 { return 0.5 }}
		afters := []time.Duration{0, 0, 30 * time.Second, 0, 0, 0}
		start := time.Now()
		var at []time.Duration
		for n := 1; n <= len(afters); n++ {
			if err := Sleep(context.Background(), b.Wait(n, afters[n-1])); err != nil {
				t.Fatal(err)
			}
			at = append(at, time.Since(start))
		}
		// Waits 0.5s, 1s, 30s (Retry-After over 2s), 4s, 5s, 5s (capped).
		want := []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 31500 * time.Millisecond,
			35500 * time.Millisecond, 40500 * time.Millisecond, 45500 * time.Millisecond}
		for i := range want {
			if at[i] != want[i] {
				t.Errorf("attempt %d at %s, want %s (all: %v)", i+2, at[i], want[i], at)
			}
		}
	})
}

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Sleep(context.Background(), time.Hour); err != nil || time.Since(start) != time.Hour {
			t.Fatalf("Sleep(1h) = %v after %s; want nil after 1h", err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start = time.Now()
		if err := Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Minute {
			t.Fatalf("Sleep(1h) with a 1m deadline = %v after %s; want DeadlineExceeded after 1m", err, time.Since(start))
		}
		done, cancel2 := context.WithCancel(context.Background())
		cancel2()
		if err := Sleep(done, time.Hour); !errors.Is(err, context.Canceled) {
			t.Fatalf("Sleep on a done context = %v, want Canceled", err)
		}
	})
}
