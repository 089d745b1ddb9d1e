package client_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/caddytest"
	"github.com/sparkfamily/spark/internal/faultproxy"
)

// TestUploadMedia_ThroughCaddy: the resumable path works through a real
// Caddy set up as docs/ENGINE.md says, and through a link cut every 1 MiB
// in front of it an original arrives whole with at most 1.2x its size sent.
func TestUploadMedia_ThroughCaddy(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	caddy := caddytest.Start(t, eng.URL)
	for _, cut := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprintf("cut%d", cut), func(t *testing.T) {
			direct := client.New(eng.URL, eng.Token, nil)
			data, sum, momentID, id := original(t, direct, 12<<20)
			px := faultproxy.New(t, caddy, nil)
			px.CutUploadsAfter(cut)
			c := client.New(px.URL(), eng.Token, nil)
			var partial bool
			m, created, err := c.UploadMedia(context.Background(), client.UploadMedia{ID: id, MomentID: momentID, Role: api.RoleOriginal,
				From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:], Progress: func(held int64) { partial = partial || held < int64(len(data)) }})
			if err != nil || !created || m.Size != int64(len(data)) {
				t.Fatalf("%+v created %v, %v", m, created, err)
			}
			if !partial {
				t.Fatal("no progress before the end: the upload did not take the resumable path")
			}
			if !bytes.Equal(eng.Media(t, id), data) {
				t.Fatal("the stored bytes are not the file")
			}
			up := px.BytesUp()
			t.Logf("%d bytes up for a %d-byte file (%.3fx)", up, len(data), float64(up)/float64(len(data)))
			if float64(up) > 1.2*float64(len(data)) {
				t.Fatalf("%d bytes went up for a %d-byte file: more than 1.2 times", up, len(data))
			}
		})
	}
}
