package server_test

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestUploadCap_Concurrent (issue 32, item 3): creations sent all at once
// by one member never hold more than the cap between them. The cap's
// check and the creation shared no lock: 60 creations at once were 18
// accepted, 4.5 GiB declared against the 1 GiB cap. Another member's
// creations meanwhile count against their own cap.
func TestUploadCap_Concurrent(t *testing.T) {
	const (
		each   = 256 << 20 // the engine's media limit
		n      = 24        // a member's creations at once (the engine takes 64 connections from one address)
		rounds = 5
	)
	e := enginetest.Start(t, enginetest.WithoutSeat())
	dad := e.AddToken(t, "dad", auth.ScopeDevice)
	kid := e.AddToken(t, "kid", auth.ScopeDevice)
	fake := "sha-256=:" + base64.StdEncoding.EncodeToString(make([]byte, 32)) + ":"
	moments := map[string]string{}
	for _, tok := range []string{dad, kid} {
		var mr api.MomentResponse
		call(t, e, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindPhoto}, "Authorization", "Bearer "+tok).want(t, http.StatusCreated, &mr)
		moments[tok] = mr.Moment.ID
	}

	// A round is each member's creations sent all at once; the accepted
	// are then cancelled for the next round. Without the lock, one round
	// in a few stayed under the cap by chance.
	for round := range rounds {
		var (
			mu       sync.Mutex
			accepted = map[string][]string{} // token -> media ids
			wg       sync.WaitGroup
			start    = make(chan struct{})
		)
		for i := range 2 * n {
			tok := dad
			if i%2 == 1 {
				tok = kid
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := newID()
				<-start
				a, err := send(e, "POST", mediaPath(id, moments[tok], "original"), nil, "Authorization", "Bearer "+tok,
					"Content-Type", "image/jpeg", "Upload-Complete", "?0", "Upload-Length", strconv.Itoa(each), "Repr-Digest", fake)
				if err != nil {
					t.Error(err)
					return
				}
				switch a.Status {
				case http.StatusCreated:
					mu.Lock()
					accepted[tok] = append(accepted[tok], id)
					mu.Unlock()
				case http.StatusInsufficientStorage:
				default:
					t.Errorf("a creation: %d %s", a.Status, a.Body)
				}
			}()
		}
		close(start)
		wg.Wait()
		for tok, name := range map[string]string{dad: "dad", kid: "kid"} {
			if got := int64(len(accepted[tok])) * each; got != engine.UploadCapPerMember {
				t.Fatalf("round %d: %s's %d creations at once were accepted for %d bytes (%.2f GiB); want the cap, %d bytes",
					round, name, n, got, float64(got)/(1<<30), int64(engine.UploadCapPerMember))
			}
			for _, id := range accepted[tok] {
				call(t, e, "DELETE", uploadPath(id), nil, "Authorization", "Bearer "+tok).want(t, http.StatusNoContent, nil)
			}
		}
	}
}
