package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/internal/versitygw"
)

// s3Target starts versitygw with one bucket and returns a function that
// opens a new, empty target in it: a prefix of its own each time.
func s3Target(tb testing.TB) (*versitygw.Server, func(testing.TB) Target) {
	tb.Helper()
	srv := versitygw.Start(tb)
	srv.Env(tb)
	srv.Bucket(tb, "spark")
	var n atomic.Int64
	return srv, func(tb testing.TB) Target {
		tb.Helper()
		t, err := Open(context.Background(), fmt.Sprintf("s3://spark/family/%d", n.Add(1)), Options{Endpoint: srv.Endpoint})
		if err != nil {
			tb.Fatal(err)
		}
		return t
	}
}

// TestS3: the S3 target passes the conformance suite the folder passes,
// against a real S3 server.
func TestS3(t *testing.T) {
	_, open := s3Target(t)
	testTarget(t, open)
}

// TestS3_Prefix: objects lie at PREFIX/name in the bucket, as in the
// folder; a target with no prefix uses the bucket's root, and one target
// does not see another's objects.
func TestS3_Prefix(t *testing.T) {
	srv, _ := s3Target(t)
	ctx := context.Background()
	a, err := Open(ctx, "s3://spark/a/b/", Options{Endpoint: srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	root, err := Open(ctx, "s3://spark", Options{Endpoint: srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if err := put(t, a, "media/ab", []byte("photo")); err != nil {
		t.Fatal(err)
	}
	if err := put(t, root, "log/1", []byte("log")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(srv.Root, "spark", "a", "b", "media", "ab")); err != nil || string(b) != "photo" {
		t.Errorf("the bucket's a/b/media/ab: %q, %v; want photo", b, err)
	}
	var got []string
	if err := a.List(ctx, "", func(n string, _ int64) error { got = append(got, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "media/ab" {
		t.Errorf("s3://spark/a/b lists %q, want only media/ab", got)
	}
	if _, err := root.Stat(ctx, "media/ab"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the root target sees a/b's object: %v", err)
	}
}

// TestS3_ShipRestore ships a real engine's folder to a bucket and
// restores it: the same log, byte for byte, and every photo; a second
// pass sends nothing.
func TestS3_ShipRestore(t *testing.T) {
	_, open := s3Target(t)
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 0, 60)
	tgt := open(t)
	ct := &counting{Target: tgt, failAfter: -1}
	t0 := time.Now()
	st := ship(t, src, ct, 2<<10)
	shipped := time.Since(t0)
	if st.Segments < 3 || st.Media != 30 {
		t.Fatalf("first pass: %+v, want several segments and 30 photos", st)
	}
	want, last := logPrefixBytes(t, src, 0)
	t0 = time.Now()
	dir, res := restore(t, tgt, RestoreOptions{})
	t.Logf("over S3: shipped %d segments and %d photos (%d bytes) in %s; restored in %s",
		st.Segments, st.Media, st.LogBytes+st.MediaBytes, shipped.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || res.LastSeq != last || res.Media != 30 {
		t.Fatalf("restored %d bytes through seq %d with %d photos; the source has %d bytes through seq %d and 30", len(got), res.LastSeq, res.Media, len(want), last)
	}
	n := ct.total()
	if st := ship(t, src, ct, 2<<10); st.Segments != 0 || st.Media != 0 || ct.total() != n {
		t.Errorf("a second pass with nothing new put %d objects (%+v)", ct.total()-n, st)
	}
}

// TestS3_Errors: wrong credentials, a missing bucket and a store that is
// down each give a sentence saying what to do, and the sentinel a status
// can tell them apart by.
func TestS3_Errors(t *testing.T) {
	srv, _ := s3Target(t)
	ctx := context.Background()
	list := func(t Target) error {
		return t.List(ctx, "", func(string, int64) error { return nil })
	}
	t.Run("ErrDenied", func(t *testing.T) {
		t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
		tg, err := Open(ctx, "s3://spark/x", Options{Endpoint: srv.Endpoint})
		if err != nil {
			t.Fatal(err)
		}
		err = list(tg)
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
			t.Errorf("List with a wrong secret: %v, want ErrDenied naming AWS_SECRET_ACCESS_KEY", err)
		}
		if err := put(t, tg, "log/1", []byte("x")); !errors.Is(err, ErrDenied) {
			t.Errorf("Put with a wrong secret: %v, want ErrDenied", err)
		}
	})
	t.Run("ErrNoBucket", func(t *testing.T) {
		tg, err := Open(ctx, "s3://nobucket/x", Options{Endpoint: srv.Endpoint})
		if err != nil {
			t.Fatal(err)
		}
		err = list(tg)
		if !errors.Is(err, ErrNoBucket) || !strings.Contains(err.Error(), `"nobucket" does not exist`) {
			t.Errorf("List of a missing bucket: %v, want ErrNoBucket naming it", err)
		}
		if _, err := tg.Get(ctx, "log/1"); !errors.Is(err, ErrNoBucket) {
			t.Errorf("Get from a missing bucket: %v, want ErrNoBucket", err)
		}
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		tg, err := Open(ctx, "s3://spark/x", Options{Endpoint: "http://127.0.0.1:1"})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		err = list(tg)
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach the store at http://127.0.0.1:1") {
			t.Errorf("List of a store that is down: %v, want ErrUnreachable naming its address", err)
		}
		if d := time.Since(t0); d > 30*time.Second {
			t.Errorf("saying the store is down took %s", d)
		}
	})
	t.Run("ErrBadAddress", func(t *testing.T) {
		for target, want := range map[string]string{
			"s3:///x":      "names no bucket",
			"file:///tmp/": "--backup-endpoint names an S3 store",
		} {
			if _, err := Open(ctx, target, Options{Endpoint: srv.Endpoint}); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Open(%s) = %v, want an error saying %q", target, err, want)
			}
		}
		if _, err := Open(ctx, "s3://spark/x", Options{Endpoint: "127.0.0.1:9000"}); err == nil || !strings.Contains(err.Error(), "http(s)://") {
			t.Errorf("an endpoint without a scheme: %v", err)
		}
	})
}

// TestS3_Unseekable: a body that cannot be read twice goes up unsigned,
// guarded by its signed SHA-256 header: whole, it is stored; torn, the
// store refuses it.
func TestS3_Unseekable(t *testing.T) {
	_, open := s3Target(t)
	tg := open(t)
	ctx := context.Background()
	type reader struct{ *strings.Reader }
	if err := tg.Put(ctx, "media/ab", reader{strings.NewReader("photo")}, 5, sha256.Sum256([]byte("photo"))); err != nil {
		t.Fatalf("Put of a whole unseekable body: %v", err)
	}
	if got := get(t, tg, "media/ab"); string(got) != "photo" {
		t.Errorf("Get = %q, want photo", got)
	}
	err := tg.Put(ctx, "media/cd", reader{strings.NewReader("torn")}, 4, sha256.Sum256([]byte("whole")))
	if !errors.Is(err, ErrBadBody) {
		t.Fatalf("Put of a torn unseekable body: %v, want ErrBadBody", err)
	}
	if _, err := tg.Stat(ctx, "media/cd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Stat after the refused body: %v, want ErrNotFound", err)
	}
}

// TestS3_Locked: in a bucket with object lock (and so versioning) the S3
// target passes the same suite (create-only puts need nothing more),
// and an object it shipped cannot be deleted with the same credentials.
func TestS3_Locked(t *testing.T) {
	srv := versitygw.Start(t)
	srv.Env(t)
	srv.LockedBucket(t, "locked")
	var n atomic.Int64
	open := func(tb testing.TB) Target {
		tb.Helper()
		t, err := Open(context.Background(), fmt.Sprintf("s3://locked/family/%d", n.Add(1)), Options{Endpoint: srv.Endpoint})
		if err != nil {
			tb.Fatal(err)
		}
		return t
	}
	testTarget(t, open)
	t.Run("NoDelete", func(t *testing.T) {
		tg := open(t)
		if err := put(t, tg, "media/ab", []byte("photo")); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		c := srv.Client()
		key := strings.TrimPrefix(tg.String(), "s3://locked/")
		key = strings.Fields(key)[0] + "/media/ab"
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("locked"), Key: &key})
		if err != nil {
			t.Fatal(err)
		}
		if head.VersionId == nil {
			t.Fatalf("%s has no version id: the bucket keeps no versions", key)
		}
		_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("locked"), Key: &key, VersionId: head.VersionId})
		if apiCode(err) != "AccessDenied" {
			t.Errorf("deleting the locked version of %s: %v, want AccessDenied (object lock)", key, err)
		}
		if got := get(t, tg, "media/ab"); string(got) != "photo" {
			t.Errorf("after the delete the object holds %q, want photo", got)
		}
	})
}
