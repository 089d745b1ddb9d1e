package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/media"
)

// TestSealedSize holds sealedSize to the sizes age writes.
func TestSealedSize(t *testing.T) {
	s := newSealer(testKey)
	for _, n := range []int{0, 1, 1000, 64<<10 - 1, 64 << 10, 64<<10 + 1, 3 << 16, 200_000} {
		c, err := s.sealBytes(bytes.Repeat([]byte{'x'}, n))
		if err != nil {
			t.Fatal(err)
		}
		if got := sealedSize(int64(n)); got != int64(len(c)) {
			t.Errorf("sealedSize(%d) = %d, age wrote %d bytes", n, got, len(c))
		}
	}
}

// checkSealed checks that the copy in t, made of the folder src, is
// encrypted: the manifest says so, every other object is an age file,
// and no record of the log or photo of the folder shows in any of them.
// files is where the store keeps the objects as files, if it does.
func checkSealed(tb testing.TB, t Target, src, files string) {
	tb.Helper()
	ctx := context.Background()
	var m Manifest
	if err := json.Unmarshal(get(tb, t, ManifestName), &m); err != nil {
		tb.Fatal(err)
	}
	if m.Format != 2 || m.Encryption != "age-x25519" || m.Recipient != testKey.Recipient() {
		tb.Fatalf("the manifest: %+v, want format 2 encrypted to %s", m, testKey.Recipient())
	}
	// Pieces of plain text that must not show: every record of the log,
	// and every photo (a run from its middle).
	var plain [][]byte
	log, _ := logPrefixBytes(tb, src, 0)
	for len(log) > 0 {
		n := min(len(log), 48)
		plain = append(plain, log[:n])
		log = log[n:]
	}
	store, err := media.OpenWith(filepath.Join(src, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		tb.Fatal(err)
	}
	photos := 0
	err = store.Walk(ctx, func(sha string, _ int64) error {
		photos++
		f, err := store.Open(sha)
		if err != nil {
			return err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		plain = append(plain, b[len(b)/2:len(b)/2+32])
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	err = t.List(ctx, "", func(name string, _ int64) error {
		if name == ManifestName {
			return nil
		}
		n++
		b := get(tb, t, name)
		if !bytes.HasPrefix(b, []byte("age-encryption.org/v1\n-> X25519 ")) {
			tb.Errorf("%s is not an age file: it starts %q", name, b[:min(len(b), 24)])
		}
		for _, p := range plain {
			if bytes.Contains(b, p) {
				tb.Fatalf("%s holds plain bytes of the folder: %q", name, p)
			}
		}
		if files != "" && strings.HasPrefix(name, mediaPrefix) {
			raw, err := os.ReadFile(filepath.Join(files, filepath.FromSlash(name)))
			if err != nil {
				tb.Fatal(err)
			}
			if bytes.HasPrefix(raw, []byte{0xff, 0xd8, 0xff}) || !bytes.Equal(raw, b) {
				tb.Errorf("the store's file of %s starts %x, a JPEG's magic, or is not the object", name, raw[:3])
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if n < photos+1 || photos == 0 {
		tb.Fatalf("%d objects checked for %d photos", n, photos)
	}
}

// TestShipRestore_Encrypted ships a folder to each kind of target and
// restores it: the copy is encrypted, reads back only with its key, and
// the restored folder keeps the key.
func TestShipRestore_Encrypted(t *testing.T) {
	src := corpus(t, 12)
	want, last := logPrefixBytes(t, src, 0)
	for _, tc := range []struct {
		name string
		open func(t *testing.T) (Target, string) // the target, and where its objects lie as files
	}{
		{"Folder", func(t *testing.T) (Target, string) {
			root := t.TempDir()
			return mustFolder(t, root), root
		}},
		{"S3", func(t *testing.T) (Target, string) {
			srv, open := s3Target(t)
			tg := open(t)
			return tg, filepath.Join(srv.Root, "spark", "family", "1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgt, files := tc.open(t)
			if st := ship(t, src, tgt, 1<<10); st.LastSeq != last || st.Media != 6 {
				t.Fatalf("shipped %+v, want through seq %d with 6 photos", st, last)
			}
			checkSealed(t, tgt, src, files)
			dir, res := restore(t, tgt, RestoreOptions{Key: testKey})
			got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
			if err != nil || !bytes.Equal(got, want) || res.Media != 6 {
				t.Fatalf("restored %d bytes and %d photos, want the source's %d bytes and 6: %v", len(got), res.Media, len(want), err)
			}
			k, err := LoadKey(dir)
			if err != nil || k.id.String() != testKey.id.String() {
				t.Fatalf("the restored folder's key: %v, %v; want the copy's", k, err)
			}
			for _, tc := range []struct {
				name string
				key  *Key
				want error
				says string
			}{
				{"ErrNeedKey", nil, ErrNeedKey, "give the key with --key FILE (the recovery text printed by `spark-engine backup key show`)"},
				{"ErrWrongKey", newTestKey(), ErrWrongKey, "the key given is not this copy's key (it was made for " + testKey.Recipient() + ")"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, err := Restore(context.Background(), tgt, filepath.Join(t.TempDir(), "r"), RestoreOptions{Key: tc.key, Logger: quiet})
					if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
						t.Fatalf("Restore = %v, want %v saying %q", err, tc.want, tc.says)
					}
				})
			}
		})
	}
}

// TestShip_Keys: a Shipper with no key makes no copy, and one with
// another key does not ship to an encrypted copy.
func TestShip_Keys(t *testing.T) {
	src := corpus(t, 3)
	root := t.TempDir()
	tgt := mustFolder(t, root)
	_, err := (&Shipper{Dir: src, Target: tgt, Logger: quiet}).Ship(context.Background())
	if err == nil || !strings.Contains(err.Error(), "a new copy is always encrypted") {
		t.Fatalf("a Shipper with no key to a new target: %v, want a refusal", err)
	}
	if got := objects(t, root); len(got) != 0 {
		t.Fatalf("the refused Shipper put %d objects", len(got))
	}
	ship(t, src, tgt, 0)
	_, err = (&Shipper{Dir: src, Target: tgt, Logger: quiet, Key: newTestKey()}).Ship(context.Background())
	if !errors.Is(err, ErrWrongKey) || !strings.Contains(err.Error(), testKey.Recipient()) {
		t.Fatalf("a Shipper with another key: %v, want ErrWrongKey naming the copy's", err)
	}
	if _, err := (&Shipper{Dir: src, Target: tgt, Logger: quiet}).Ship(context.Background()); err == nil || !strings.Contains(err.Error(), "is encrypted") {
		t.Fatalf("a Shipper with no key to an encrypted copy: %v, want a refusal", err)
	}
}

// statMiss is a Target that says it lacks every photo: what a pass
// meets when a put of its own reached the store after its Stat (a retry
// after a crash or a timeout).
type statMiss struct{ Target }

// List does not show the photos either (a first pass lists them once
// rather than ask for each).
func (s statMiss) List(ctx context.Context, prefix string, fn func(string, int64) error) error {
	return s.Target.List(ctx, prefix, func(n string, size int64) error {
		if strings.HasPrefix(n, mediaPrefix) {
			return nil
		}
		return fn(n, size)
	})
}

func (s statMiss) Stat(ctx context.Context, name string) (int64, error) {
	if strings.HasPrefix(name, mediaPrefix) {
		return 0, ErrNotFound
	}
	return s.Target.Stat(ctx, name)
}

// TestShip_ConflictRetry: a photo's object already there is another
// encryption of the same photo (age's output differs each time): the Put
// that meets it is success. One that holds another photo is a conflict.
func TestShip_ConflictRetry(t *testing.T) {
	src := corpus(t, 6)
	want, _ := logPrefixBytes(t, src, 0)
	first := mustFolder(t, t.TempDir())
	ship(t, src, first, 0)
	var photos []string
	if err := first.List(context.Background(), mediaPrefix, func(n string, _ int64) error { photos = append(photos, n); return nil }); err != nil || len(photos) != 3 {
		t.Fatalf("photos in the copy: %v, %v", photos, err)
	}
	for _, tc := range []struct {
		name  string
		other bool // the object there holds another photo
	}{
		{"SamePhoto", false},
		{"ErrConflict", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgt := mustFolder(t, t.TempDir())
			for i, n := range photos {
				from := n
				if tc.other {
					from = photos[(i+1)%len(photos)]
				}
				if err := put(t, tgt, n, get(t, first, from)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := (&Shipper{Dir: src, Target: statMiss{tgt}, Logger: quiet, Key: testKey}).Ship(context.Background())
			if tc.other {
				if !errors.Is(err, ErrConflict) {
					t.Fatalf("Ship over another photo's object: %v, want ErrConflict", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Ship over another encryption of the same photos: %v, want success", err)
			}
			dir, res := restore(t, tgt, RestoreOptions{})
			got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
			if err != nil || !bytes.Equal(got, want) || res.Media != 3 {
				t.Fatalf("restored %d bytes and %d photos, want %d and 3: %v", len(got), res.Media, len(want), err)
			}
		})
	}
}
