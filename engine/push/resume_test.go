package push_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/faultproxy"
)

// TestPush_OriginalsResumeOverACutLink: a push from a folder through a
// link that drops every connection after 1 MiB sends its 6 MiB original
// by the resumable path: it arrives whole, and not much more than the
// corpus goes up the link (each try starting at byte 0, it never would).
func TestPush_OriginalsResumeOverACutLink(t *testing.T) {
	src := enginetest.Start(t)
	c := clientOf(src)
	id, orig := ulid.Make().String(), ulid.Make().String()
	if _, _, err := c.CreateMoment(t.Context(), api.CreateMomentRequest{ID: id, Kind: api.KindPhoto, OriginalID: orig}); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 6<<20)
	rand.Read(data)
	sum := sha256.Sum256(data)
	if _, _, err := c.PutMedia(t.Context(), client.PutMedia{ID: orig, MomentID: id, Role: api.RoleOriginal, ContentType: "image/jpeg",
		Body: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:]}); err != nil {
		t.Fatal(err)
	}
	dst := enginetest.Start(t)
	px := faultproxy.New(t, dst.URL, nil)
	px.CutUploadsAfter(1 << 20)
	opts := push.Options{Source: src.Dir, Target: client.New(px.URL(), dst.Token, nil), StateDir: t.TempDir(), Logger: quiet()}
	opts.Backoff.Base, opts.Backoff.Cap = 1e6, 20e6
	st, err := push.Run(t.Context(), opts)
	if err != nil || !st.Complete {
		t.Fatalf("push: %v (%+v)", err, st)
	}
	if !bytes.Equal(dst.Media(t, orig), data) {
		t.Fatal("the original did not arrive whole")
	}
	up := px.BytesUp()
	t.Logf("%d bytes up for a %d-byte original (%.3fx)", up, len(data), float64(up)/float64(len(data)))
	if float64(up) > 1.2*float64(len(data)) {
		t.Fatalf("%d bytes went up for a %d-byte original: more than 1.2 times", up, len(data))
	}
	checkSame(t, src, dst)
}
