package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

func newID() string { return ulid.Make().String() }

func TestClient_Routes(t *testing.T) {
	eng := enginetest.Start(t)
	c := client.New(eng.URL+"/", eng.Token, nil)
	ctx := context.Background()

	h, err := c.Health(ctx)
	if err != nil || !h.OK {
		t.Fatalf("Health = %+v, %v", h, err)
	}
	momentID, copyID, origID := newID(), newID(), newID()
	taken := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	req := api.CreateMomentRequest{ID: momentID, ClientRequestID: "req-1", Kind: api.KindPhoto, TakenAt: &taken, CopyID: copyID, OriginalID: origID}
	m, created, err := c.CreateMoment(ctx, req)
	if err != nil || !created || m.ID != momentID {
		t.Fatalf("CreateMoment = %+v, %v, %v", m, created, err)
	}
	if m, created, err = c.CreateMoment(ctx, req); err != nil || created || m.ID != momentID {
		t.Fatalf("CreateMoment again = %+v, %v, %v; want the same moment, not created", m, created, err)
	}

	t.Run("PutMedia", func(t *testing.T) {
		body := bytes.Repeat([]byte("spark"), 200_000) // 1 MB
		sum := sha256.Sum256(body)
		var last int64
		put := client.PutMedia{ID: copyID, MomentID: momentID, Role: api.RoleCopy, ContentType: "image/jpeg",
			Body: bytes.NewReader(body), Size: int64(len(body)), SHA256: sum[:], Progress: func(n int64) { last = n }}
		med, created, err := c.PutMedia(ctx, put)
		if err != nil || !created || med.Size != int64(len(body)) || med.SHA256 != hexOf(sum[:]) {
			t.Fatalf("PutMedia = %+v, %v, %v", med, created, err)
		}
		if last != int64(len(body)) {
			t.Errorf("progress ended at %d, want %d", last, len(body))
		}
		put.Body, put.Progress = bytes.NewReader(body), nil
		if _, created, err := c.PutMedia(ctx, put); err != nil || created {
			t.Errorf("PutMedia again = created %v, %v; want not created", created, err)
		}
		rc, err := c.GetMedia(ctx, copyID)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, body) {
			t.Errorf("GetMedia returned %d bytes, want the %d uploaded", len(got), len(body))
		}
		// Bytes that disagree with their digest are refused.
		bad := client.PutMedia{ID: origID, MomentID: momentID, Role: api.RoleOriginal, Body: strings.NewReader("abc"), Size: 3, SHA256: sum[:]}
		_, _, err = c.PutMedia(ctx, bad)
		if e, ok := api.AsError(err); !ok || e.Status != 400 || e.Code != api.CodeDigestMismatch {
			t.Errorf("PutMedia with a wrong digest = %v, want 400 digest_mismatch", err)
		}
	})

	t.Run("Turns", func(t *testing.T) {
		turn, created, err := c.StartTurn(ctx, momentID, api.StartTurnRequest{ClientRequestID: "turn-1"})
		if err != nil || !created || turn.MomentID != momentID {
			t.Fatalf("StartTurn = %+v, %v, %v", turn, created, err)
		}
		again, created, err := c.StartTurn(ctx, momentID, api.StartTurnRequest{ClientRequestID: "turn-1"})
		if err != nil || created || again.ID != turn.ID {
			t.Errorf("StartTurn again = %+v, %v, %v", again, created, err)
		}
		if got, err := c.Turn(ctx, turn.ID); err != nil || got.ID != turn.ID {
			t.Errorf("Turn = %+v, %v", got, err)
		}
		turns, _, err := c.StartJob(ctx, momentID, "job-1")
		if err != nil || len(turns) == 0 {
			t.Errorf("StartJob = %+v, %v", turns, err)
		}
	})

	t.Run("Moments", func(t *testing.T) {
		caption := "at the lake"
		m, _, err := c.EditMoment(ctx, momentID, api.EditMomentRequest{Caption: &caption})
		if err != nil || m.Caption != caption {
			t.Fatalf("EditMoment = %+v, %v", m, err)
		}
		ms, next, err := c.Moments(ctx, 10, "")
		if err != nil || len(ms) != 1 || next != nil {
			t.Errorf("Moments = %d, %v, %v", len(ms), next, err)
		}
		if got, err := c.Moment(ctx, momentID); err != nil || got.Copy == nil {
			t.Errorf("Moment = %+v, %v", got, err)
		}
	})

	t.Run("Phrases", func(t *testing.T) {
		p, created, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: "The  Lake", MomentID: momentID})
		if err != nil || !created || p.ID != "keep:the lake" {
			t.Fatalf("KeepPhrase = %+v, %v, %v", p, created, err)
		}
		ps, err := c.Phrases(ctx)
		if err != nil || len(ps) != 1 {
			t.Errorf("Phrases = %+v, %v", ps, err)
		}
		_, _, _, err = c.StartRecall(ctx, "recall-1")
		if err != nil {
			t.Errorf("StartRecall: %v", err)
		}
		if removed, err := c.RemovePhrase(ctx, p.ID); err != nil || !removed {
			t.Errorf("RemovePhrase = %v, %v", removed, err)
		}
	})

	t.Run("OpsAndDelete", func(t *testing.T) {
		if deleted, err := c.DeleteMoment(ctx, momentID); err != nil || !deleted {
			t.Errorf("DeleteMoment = %v, %v", deleted, err)
		}
		ops, _, err := c.Ops(ctx, 0, 1000)
		if err != nil || len(ops) == 0 || ops[0].Op != api.OpMomentCreate {
			t.Errorf("Ops = %d ops, %v", len(ops), err)
		}
	})

	t.Run("ErrUnknown", func(t *testing.T) {
		_, err := c.Moment(ctx, newID())
		if e, ok := api.AsError(err); !ok || e.Status != 404 || e.Message == "" {
			t.Errorf("Moment(unknown) = %v, want a 404 *api.Error", err)
		}
	})

	t.Run("ErrUnauthorized", func(t *testing.T) {
		_, _, err := client.New(eng.URL, "wrong", nil).Moments(ctx, 0, "")
		if e, ok := api.AsError(err); !ok || e.Status != 401 {
			t.Errorf("wrong token: %v, want 401", err)
		}
	})
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestClient_Errors(t *testing.T) {
	date := time.Date(2030, 1, 1, 12, 0, 30, 0, time.UTC)
	for _, tt := range []struct {
		name       string
		status     int
		header     string
		body       string
		wantCode   string
		wantMsg    string
		retryAfter time.Duration
	}{
		{"JSON", 409, "", `{"error":{"code":"media_conflict","message":"different bytes"}}`, "media_conflict", "different bytes", 0},
		{"RetryAfterSeconds", 503, "7", `{"error":{"code":"unavailable","message":"busy"}}`, "unavailable", "busy", 7 * time.Second},
		{"RetryAfterDate", 429, date.Format(http.TimeFormat), `{"error":{"code":"slow_down","message":"later"}}`, "slow_down", "later", 30 * time.Second},
		{"HTML", 502, "", "<html><body>Bad Gateway</body></html>", "http_502", "502 Bad Gateway: <html><body>Bad Gateway</body></html>", 0},
		{"Empty", 500, "bogus", "", "http_500", "500 Internal Server Error with no explanation", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.header != "" {
					w.Header().Set("Retry-After", tt.header)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c := client.New(srv.URL, "t", nil)
			c.Now = func() time.Time { return date.Add(-30 * time.Second) }
			_, err := c.Moment(context.Background(), newID())
			e, ok := api.AsError(err)
			if !ok {
				t.Fatalf("err = %v, want *api.Error", err)
			}
			if e.Status != tt.status || e.Code != tt.wantCode || !strings.Contains(e.Message, tt.wantMsg) || e.RetryAfter != tt.retryAfter {
				t.Errorf("got %+v, want status %d code %q message with %q retry after %s", e, tt.status, tt.wantCode, tt.wantMsg, tt.retryAfter)
			}
			if !strings.Contains(err.Error(), "get moment") {
				t.Errorf("err %q should say what was being done", err)
			}
		})
	}
	t.Run("Network", func(t *testing.T) {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close()
		_, err := client.New("http://"+addr, "t", nil).Health(context.Background())
		// Windows answers WSAECONNREFUSED (10061), which syscall.ECONNREFUSED is not there.
		refused := errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.Errno(10061))
		if _, ok := api.AsError(err); ok || !refused || !strings.Contains(err.Error(), "cannot reach the engine") {
			t.Errorf("err = %v, want a wrapped connection refused", err)
		}
	})
}

// TestClient_PhrasesReadsEveryPage: an engine pages its kept phrases
// (api.MaxPhraseLimit a page); Phrases reads them all, in order.
func TestClient_PhrasesReadsEveryPage(t *testing.T) {
	eng := enginetest.Start(t)
	c := client.New(eng.URL, eng.Token, nil)
	ctx := context.Background()
	n := api.MaxPhraseLimit + 5
	keep := func(i int) error {
		_, _, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: fmt.Sprintf("phrase %05d", i)})
		return err
	}
	// The first and the last are kept alone, so they are the oldest and the
	// newest; the thousand between are kept 16 at a time, sharing the
	// engine's group fsyncs: one at a time, each waited for its own fsync,
	// and under Wine on CI's disk the thousand took longer than the
	// package's 240 s.
	if err := keep(0); err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, 16)
		errs  = make(chan error, n)
	)
	for i := 1; i < n-1; i++ {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs <- keep(i)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := keep(n - 1); err != nil {
		t.Fatal(err)
	}
	ps, err := c.Phrases(ctx)
	if err != nil || len(ps) != n {
		t.Fatalf("Phrases = %d phrases, %v; want %d", len(ps), err, n)
	}
	seen := make(map[string]bool, n)
	for _, p := range ps {
		if seen[p.ID] {
			t.Fatalf("phrase %q comes twice across the pages", p.Text)
		}
		seen[p.ID] = true
	}
	if ps[0].Text != "phrase 00000" || ps[n-1].Text != fmt.Sprintf("phrase %05d", n-1) {
		t.Errorf("Phrases from %q to %q; want them oldest first", ps[0].Text, ps[n-1].Text)
	}
}
