package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/internal/benchkit"
	"github.com/sparkfamily/spark/internal/faultproxy"
)

var (
	resumeMB     = flag.Int("resume-mb", 34, "MB of the original the resumable benchmark uploads")
	resumeCutKiB = flag.Int("resume-cut-kib", 2048, "KiB after which the resumable benchmark's weak link cuts every connection")
	resumeRounds = flag.Int("resume-rounds", 3, "rounds of the resumable benchmark; medians are quoted")
)

func init() {
	register("resumable", bench{
		help: "an original over a link cut every 2 MiB beside the same upload over an unbroken link: bytes sent up and time; goal: arrives, <= 1.2x its size sent",
		run:  benchResumable,
	})
}

// benchResumable uploads one original (random bytes, --resume-mb) with
// client.UploadMedia to a fresh local engine through a fault proxy, once
// over an unbroken link and once over a link that cuts every connection
// after --resume-cut-kib, each round, and quotes the bytes the proxy
// received and the times side by side with the file's size.
func benchResumable(ctx context.Context, out io.Writer) error {
	size := int64(*resumeMB) * 1e6
	data := make([]byte, size)
	rand.Read(data)
	sum := sha256.Sum256(data)
	type figures struct{ sent, secs []float64 }
	var whole, cut figures
	for round := range *resumeRounds {
		for _, link := range []struct {
			f     *figures
			cutAt int64
		}{{&whole, 0}, {&cut, int64(*resumeCutKiB) << 10}} {
			sent, took, err := uploadOver(ctx, fmt.Sprintf("resume%d-%d", round, link.cutAt), data, sum[:], link.cutAt)
			if err != nil {
				return err
			}
			link.f.sent = append(link.f.sent, float64(sent))
			link.f.secs = append(link.f.secs, took.Seconds())
		}
		fmt.Fprintf(out, "  round %d: unbroken %.1f MB sent in %.2f s; cut every %d KiB %.1f MB sent in %.2f s; load %s\n",
			round+1, whole.sent[round]/1e6, whole.secs[round], *resumeCutKiB, cut.sent[round]/1e6, cut.secs[round], benchkit.LoadAverage())
	}
	ratio := benchkit.Median(cut.sent) / float64(size)
	verdict := "meets"
	if ratio > 1.2 {
		verdict = "MISSES"
	}
	fmt.Fprintf(out, "resumable: a %d MB original (%d bytes), medians of %d rounds over loopback through a fault proxy; load average (1, 5, 15 min) %s\n",
		*resumeMB, size, *resumeRounds, benchkit.LoadAverage())
	fmt.Fprintf(out, "  unbroken link:           %.1f MB sent (%.3fx the file) in %.2f s\n", benchkit.Median(whole.sent)/1e6, benchkit.Median(whole.sent)/float64(size), benchkit.Median(whole.secs))
	fmt.Fprintf(out, "  cut every %4d KiB:       %.1f MB sent (%.3fx the file) in %.2f s (goal <= 1.2x: %s)\n", *resumeCutKiB, benchkit.Median(cut.sent)/1e6, ratio, benchkit.Median(cut.secs), verdict)
	fmt.Fprintf(out, "    rounds: unbroken %s s, cut %s s\n", rounds(whole.secs), rounds(cut.secs))
	// Today's PUT over the same cut link, for the record: each try starts
	// at byte 0.
	sent, stored, err := putOver(ctx, data, sum[:], int64(*resumeCutKiB)<<10, putTries)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  PUT over the cut link:   %d tries, %.1f MB sent (%.3fx the file), stored: %v\n", putTries, float64(sent)/1e6, float64(sent)/float64(size), stored)
	return nil
}

// putTries is how many times the benchmark tries today's PUT over the cut
// link.
const putTries = 5

// putOver tries PUT /v1/media/{id} of data tries times through a proxy
// that cuts every connection after cutAt bytes, and returns the bytes the
// proxy received and whether the engine stored the file.
func putOver(ctx context.Context, data, sum []byte, cutAt int64, tries int) (int64, bool, error) {
	dir, cleanup, err := workDir("resume-put")
	if err != nil {
		return 0, false, err
	}
	defer cleanup()
	url, token, stop, err := localEngine(ctx, filepath.Join(dir, "engine"))
	if err != nil {
		return 0, false, err
	}
	defer stop()
	momentID, id := ulid.Make().String(), ulid.Make().String()
	if _, _, err := client.New(url, token, nil).CreateMoment(ctx, api.CreateMomentRequest{ID: momentID, Kind: api.KindPhoto, OriginalID: id}); err != nil {
		return 0, false, err
	}
	px, err := faultproxy.Start(url, nil)
	if err != nil {
		return 0, false, err
	}
	defer px.Stop()
	px.CutUploadsAfter(cutAt)
	c := client.New(px.URL(), token, client.NewHTTPClient(client.HTTPOptions{}))
	for range tries {
		if _, _, err := c.PutMedia(ctx, client.PutMedia{ID: id, MomentID: momentID, Role: api.RoleOriginal, ContentType: "image/jpeg",
			Body: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum}); err == nil {
			return px.BytesUp(), true, nil
		}
	}
	return px.BytesUp(), false, nil
}

// uploadOver uploads data as an original to a fresh engine through a proxy
// that cuts every connection after cutAt bytes (0: never), and returns the
// bytes the proxy received and the upload's time.
func uploadOver(ctx context.Context, name string, data, sum []byte, cutAt int64) (int64, time.Duration, error) {
	dir, cleanup, err := workDir(name)
	if err != nil {
		return 0, 0, err
	}
	defer cleanup()
	url, token, stop, err := localEngine(ctx, filepath.Join(dir, "engine"))
	if err != nil {
		return 0, 0, err
	}
	defer stop()
	momentID, id := ulid.Make().String(), ulid.Make().String()
	if _, _, err := client.New(url, token, nil).CreateMoment(ctx, api.CreateMomentRequest{ID: momentID, Kind: api.KindPhoto, OriginalID: id}); err != nil {
		return 0, 0, err
	}
	px, err := faultproxy.Start(url, nil)
	if err != nil {
		return 0, 0, err
	}
	defer px.Stop()
	px.CutUploadsAfter(cutAt)
	c := client.New(px.URL(), token, client.NewHTTPClient(client.HTTPOptions{}))
	start := time.Now()
	m, _, err := c.UploadMedia(ctx, client.UploadMedia{ID: id, MomentID: momentID, Role: api.RoleOriginal, ContentType: "image/jpeg",
		From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum})
	took := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("resumable bench: %w", err)
	}
	if m.Size != int64(len(data)) {
		return 0, 0, fmt.Errorf("resumable bench: the engine stored %d bytes of %d", m.Size, len(data))
	}
	return px.BytesUp(), took, nil
}
