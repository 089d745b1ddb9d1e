package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// load is the outcome of a closed-loop run of HTTP clients.
type load struct {
	Count   int
	Elapsed time.Duration
	P50     time.Duration
	P99     time.Duration
}

// runLoad runs clients goroutines for about d, each sending one request at
// a time made by next (given the worker and its request number) and
// expecting wantStatus. Latencies are measured per request, from send to
// the last byte of the answer.
func runLoad(ctx context.Context, hc *http.Client, clients int, d time.Duration, wantStatus int, next func(worker, i int) (*http.Request, error)) (load, error) {
	var (
		mu   sync.Mutex
		lats []time.Duration
		wg   sync.WaitGroup
		errs = make(chan error, clients)
	)
	start := time.Now()
	deadline := start.Add(d)
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			defer func() {
				mu.Lock()
				lats = append(lats, local...)
				mu.Unlock()
			}()
			for i := 0; time.Now().Before(deadline); i++ {
				if ctx.Err() != nil {
					errs <- ctx.Err()
					return
				}
				req, err := next(w, i)
				if err != nil {
					errs <- err
					return
				}
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				local = append(local, time.Since(t0))
				if err != nil {
					errs <- err
					return
				}
				if resp.StatusCode != wantStatus {
					errs <- fmt.Errorf("%s %s: status %d, want %d", req.Method, req.URL.Path, resp.StatusCode, wantStatus)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return load{}, err
	}
	slices.Sort(lats)
	return load{Count: len(lats), Elapsed: elapsed, P50: percentile(lats, 0.50), P99: percentile(lats, 0.99)}, nil
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p)
	return sorted[i]
}

// benchClient is an HTTP client that keeps one connection per load worker.
func benchClient(clients int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{}).DialContext,
		MaxIdleConns:        clients * 2,
		MaxIdleConnsPerHost: clients * 2,
		DisableCompression:  true,
	}}
}

// jsonPost makes a POST of a JSON body with a bearer token (if any).
func jsonPost(url, token string, body []byte) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// repeatReader yields n bytes by repeating a block, so a large upload needs
// no large buffer.
type repeatReader struct {
	block []byte
	off   int
	left  int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.block[r.off:])
		n += c
		r.off = (r.off + c) % len(r.block)
	}
	r.left -= int64(n)
	return n, nil
}
