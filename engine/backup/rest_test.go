package backup

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// After a put, a pass beside a busy engine rests as long as the put took
// (at most maxRest), and goes on at once when the engine is idle or turns
// idle; a canceled pass stops resting.
func TestShipper_Rest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		busy      bool
		idleAfter time.Duration // 0: stays as it is
		took      time.Duration
		cancel    bool
		min, max  time.Duration
		want      bool
	}{
		{name: "idle", busy: false, took: time.Second, max: time.Second, want: true},
		{name: "busy", busy: true, took: 300 * time.Millisecond, min: 280 * time.Millisecond, max: 3 * time.Second, want: true},
		{name: "busy, a slow put", busy: true, took: time.Hour, min: maxRest - 20*time.Millisecond, max: maxRest + 3*time.Second, want: true},
		{name: "busy, then idle", busy: true, idleAfter: 100 * time.Millisecond, took: 5 * time.Second, min: 90 * time.Millisecond, max: maxRest - 200*time.Millisecond, want: true},
		{name: "canceled", busy: true, took: 5 * time.Second, cancel: true, max: time.Second, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ctx := busyShipper(t, tc.busy, tc.idleAfter, tc.cancel)
			began := time.Now()
			got := s.rest(ctx, tc.took)
			took := time.Since(began)
			if got != tc.want || took < tc.min || took > tc.max {
				t.Errorf("rest = %v after %s; want %v after %s to %s", got, took, tc.want, tc.min, tc.max)
			}
		})
	}
}

// Before it takes the next photo, a pass beside a busy engine waits until
// the engine is idle, and stops waiting when no photo is left to take or
// it is canceled.
func TestShipper_Yield(t *testing.T) {
	for _, tc := range []struct {
		name      string
		busy      bool
		idleAfter time.Duration // 0: stays as it is
		fedClosed bool
		cancel    bool
		min, max  time.Duration
		want      bool
	}{
		{name: "idle", max: time.Second, want: true},
		{name: "busy, then idle", busy: true, idleAfter: 150 * time.Millisecond, min: 140 * time.Millisecond, max: 3 * time.Second, want: true},
		{name: "busy, nothing left to take", busy: true, fedClosed: true, max: time.Second, want: false},
		{name: "busy, canceled", busy: true, cancel: true, max: time.Second, want: false},
		{name: "idle, canceled", cancel: true, max: time.Second, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ctx := busyShipper(t, tc.busy, tc.idleAfter, tc.cancel)
			fed := make(chan struct{})
			if tc.fedClosed {
				close(fed)
			}
			began := time.Now()
			got := s.yield(ctx, fed)
			took := time.Since(began)
			if got != tc.want || took < tc.min || took > tc.max {
				t.Errorf("yield = %v after %s; want %v after %s to %s", got, took, tc.want, tc.min, tc.max)
			}
		})
	}
}

// busyShipper is a Shipper whose engine is busy or not, turning idle
// after idleAfter (0: never), and the context to call it with, canceled
// already when canceled is set.
func busyShipper(t *testing.T, busy bool, idleAfter time.Duration, canceled bool) (*Shipper, context.Context) {
	var b atomic.Bool
	b.Store(busy)
	if idleAfter > 0 {
		time.AfterFunc(idleAfter, func() { b.Store(false) })
	}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	if canceled {
		cancel()
	}
	return &Shipper{Busy: b.Load}, ctx
}
