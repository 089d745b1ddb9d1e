package media_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/vfs/crashfs"
)

// TestUploads_PowerCut appends parts to a resumable upload on a simulated
// disk and looks at what a restart would find had the power gone off
// before each of its file operations: never an offset below one already
// answered, never a byte counted that is not the file's, and the rest
// appended from there makes the whole file with its SHA-256.
func TestUploads_PowerCut(t *testing.T) {
	seeds := uint64(2)
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			root := t.TempDir()
			fsys, err := crashfs.New(root, seed)
			if err != nil {
				t.Fatal(err)
			}
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
			dir := filepath.Join(root, "media")
			s, err := media.OpenWith(dir, media.Options{FS: fsys, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			rnd := rand.New(rand.NewPCG(seed, 9))
			data := make([]byte, 300_000)
			for i := range data {
				data[i] = byte(rnd.UintN(256))
			}
			sum := sha256.Sum256(data)
			id := ulid.Make().String()
			start := fsys.Ops()
			var snaps []int
			for op := start + 1; op < start+400; op++ {
				snaps = append(snaps, op)
			}
			fsys.SnapshotAt(snaps...)
			u := &media.Upload{ID: id, MomentID: ulid.Make().String(), Role: "original", Length: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Updated: time.Now()}
			if err := s.CreateUpload(u); err != nil {
				t.Fatal(err)
			}
			type ack struct {
				op     int
				offset int64
			}
			acks := []ack{{fsys.Ops(), 0}}
			for u.Offset < u.Length {
				n := min(int64(1+rnd.IntN(60_000)), u.Length-u.Offset)
				if _, err := s.AppendUpload(context.Background(), u, bytes.NewReader(data[u.Offset:u.Offset+n]), u.Length-u.Offset, time.Now()); err != nil {
					t.Fatal(err)
				}
				acks = append(acks, ack{fsys.Ops(), u.Offset})
			}
			checked := 0
			for _, sn := range fsys.Snapshots() {
				if sn.Op <= acks[0].op {
					// Inside the creation: crashfs's image reads a file
					// created after the snapshot (state.json) as it is now,
					// which no restart would find.
					continue
				}
				answered := int64(-1)
				for _, a := range acks {
					if a.op < sn.Op {
						answered = a.offset
					}
				}
				img := filepath.Join(t.TempDir(), "img")
				if err := sn.WriteTo(img); err != nil {
					t.Fatal(err)
				}
				rs, err := media.Open(filepath.Join(img, "media"), quiet)
				if err != nil {
					t.Fatalf("cut before op %d: open: %v", sn.Op, err)
				}
				got, err := rs.LoadUpload(id)
				if errors.Is(err, media.ErrNoUpload) {
					if answered >= 0 {
						t.Fatalf("cut before op %d: the upload created before the cut is gone", sn.Op)
					}
					continue
				}
				if err != nil {
					t.Fatalf("cut before op %d: %v", sn.Op, err)
				}
				if got.Offset < answered {
					t.Fatalf("cut before op %d: offset %d, below the %d answered before the cut", sn.Op, got.Offset, answered)
				}
				part, err := os.ReadFile(filepath.Join(img, "media", media.UploadsDir, id, "part"))
				if err != nil || int64(len(part)) < got.Offset || !bytes.Equal(part[:got.Offset], data[:got.Offset]) {
					t.Fatalf("cut before op %d: the part's first %d bytes are not the file's (%d bytes, %v)", sn.Op, got.Offset, len(part), err)
				}
				if _, err := rs.AppendUpload(context.Background(), got, bytes.NewReader(data[got.Offset:]), got.Length-got.Offset, time.Now()); err != nil {
					t.Fatalf("cut before op %d: append the rest: %v", sn.Op, err)
				}
				if s, _ := media.UploadSum(got); s != hex.EncodeToString(sum[:]) {
					t.Fatalf("cut before op %d: the resumed upload hashes to %s", sn.Op, s)
				}
				part, _ = os.ReadFile(filepath.Join(img, "media", media.UploadsDir, id, "part"))
				if !bytes.Equal(part, data) {
					t.Fatalf("cut before op %d: the resumed upload's bytes are not the file", sn.Op)
				}
				checked++
			}
			if checked < 10 {
				t.Fatalf("only %d cut points checked", checked)
			}
			t.Logf("%d cut points checked over %d appends", checked, len(acks)-1)
		})
	}
}
