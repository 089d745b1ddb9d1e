package engine

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

func newULID() string { return ulid.Make().String() }

// TestCreateMoment_Concurrent fires 50 identical creates at once: exactly
// one moment and one moment.create line, whatever the interleaving.
func TestCreateMoment_Concurrent(t *testing.T) {
	tests := []struct {
		name string
		req  func(i int, id string) api.CreateMomentRequest
	}{
		{"SameRequestIDNoMomentID", func(i int, id string) api.CreateMomentRequest {
			return api.CreateMomentRequest{ClientRequestID: "capture-1", Kind: api.KindPhoto}
		}},
		{"SameMomentIDOtherRequestIDs", func(i int, id string) api.CreateMomentRequest {
			return api.CreateMomentRequest{ID: id, ClientRequestID: fmt.Sprintf("capture-%d", i), Kind: api.KindPhoto}
		}},
		{"SameRequestIDSameMomentID", func(i int, id string) api.CreateMomentRequest {
			return api.CreateMomentRequest{ID: id, ClientRequestID: "capture-1", Kind: api.KindPhoto}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := openEngine(t, t.TempDir())
			id := newULID()
			const n = 50
			ids := make([]string, n)
			created := make([]bool, n)
			errs := make([]error, n)
			atOnce(n, func(i int) {
				mo, c, err := e.CreateMoment(ctxT(t), tt.req(i, id))
				errs[i], created[i] = err, c
				if mo != nil {
					ids[i] = mo.ID
				}
			})
			nCreated := 0
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("create %d: %v", i, errs[i])
				}
				if ids[i] != ids[0] {
					t.Errorf("create %d got moment %s, create 0 got %s", i, ids[i], ids[0])
				}
				if created[i] {
					nCreated++
				}
			}
			if nCreated != 1 {
				t.Errorf("%d creates answered created=true, want 1", nCreated)
			}
			wantOps(t, e, map[string]int{api.OpMomentCreate: 1})
			page, _, err := e.Moments(ctxT(t), 200, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(page) != 1 {
				t.Errorf("%d moments, want 1", len(page))
			}
		})
	}
}

// The contract's idempotency table, one test per row, each asserting the
// answer and the count of op lines.

func TestIdempotency_CreateSameRequestIDNoMomentID(t *testing.T) {
	e := openEngine(t, t.TempDir())
	req := api.CreateMomentRequest{ClientRequestID: "phone-7", Kind: api.KindNote, Caption: "milk"}
	first, created, err := e.CreateMoment(ctxT(t), req)
	if err != nil || !created {
		t.Fatalf("first create: created=%v err=%v", created, err)
	}
	if _, err := api.ParseULID(first.ID); err != nil {
		t.Fatalf("minted id %q is not a ULID: %v", first.ID, err)
	}
	again, created, err := e.CreateMoment(ctxT(t), req)
	if err != nil || created {
		t.Fatalf("repeat: created=%v err=%v, want false, nil", created, err)
	}
	if again.ID != first.ID {
		t.Errorf("repeat returned moment %s, want the minted %s", again.ID, first.ID)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1})
}

func TestIdempotency_CreateSameMomentID(t *testing.T) {
	e := openEngine(t, t.TempDir())
	id := strings.ToLower(newULID()) // lower case is accepted and upper-cased
	first, created, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{ID: id, Kind: api.KindPhoto, Caption: "first"})
	if err != nil || !created {
		t.Fatalf("first create: created=%v err=%v", created, err)
	}
	if first.ID != strings.ToUpper(id) {
		t.Errorf("id = %s, want %s", first.ID, strings.ToUpper(id))
	}
	// Another request id, other values: the moment that exists wins.
	again, created, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{ID: id, ClientRequestID: "other", Kind: api.KindNote, Caption: "second"})
	if err != nil || created {
		t.Fatalf("repeat: created=%v err=%v, want false, nil", created, err)
	}
	if again.Caption != "first" || again.Kind != api.KindPhoto {
		t.Errorf("repeat returned %+v, want the first moment", again)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1})
}

func TestIdempotency_CreateDeletedMomentID(t *testing.T) {
	e := openEngine(t, t.TempDir())
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	if _, err := e.DeleteMoment(ctxT(t), mo.ID); err != nil {
		t.Fatal(err)
	}
	again, created, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{ID: mo.ID, Kind: api.KindPhoto})
	if err != nil || created {
		t.Fatalf("create of a deleted id: created=%v err=%v, want false, nil", created, err)
	}
	if again.DeletedAt == nil {
		t.Errorf("the answer is not the deleted moment: %+v", again)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMomentDelete: 1})
}

func TestIdempotency_UploadMedia(t *testing.T) {
	e := openEngine(t, t.TempDir())
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	body := smallJPEG(t, 1)
	id := newULID()
	first, created, err := e.PutMedia(ctxT(t), PutMedia{ID: id, MomentID: mo.ID, Role: api.RoleCopy, ContentType: "image/jpeg", Body: bytes.NewReader(body)})
	if err != nil || !created {
		t.Fatalf("first put: created=%v err=%v", created, err)
	}
	sum := sha256.Sum256(body)
	if first.SHA256 != fmt.Sprintf("%x", sum) || first.Size != int64(len(body)) {
		t.Errorf("record %+v does not describe the bytes", first)
	}

	t.Run("SameBytes", func(t *testing.T) {
		again, created, err := e.PutMedia(ctxT(t), PutMedia{ID: id, MomentID: mo.ID, Role: api.RoleCopy, ContentType: "image/jpeg", Body: bytes.NewReader(body), Digest: sum[:]})
		if err != nil || created {
			t.Fatalf("repeat: created=%v err=%v, want false, nil", created, err)
		}
		if *again != *first {
			t.Errorf("repeat = %+v, want %+v", again, first)
		}
		wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1})
	})
	t.Run("OtherBytes", func(t *testing.T) {
		_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: id, MomentID: mo.ID, Role: api.RoleCopy, Body: bytes.NewReader(smallJPEG(t, 2))})
		wantCode(t, err, api.CodeMediaConflict)
		stored, err := os.ReadFile(blobPath(t, e, first.SHA256))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stored, body) {
			t.Error("the stored bytes changed after a conflicting upload")
		}
		md, f, err := e.OpenMedia(ctxT(t), id)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if *md != *first {
			t.Errorf("record after conflict = %+v, want %+v", md, first)
		}
		wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1})
	})
	t.Run("MomentShowsCopy", func(t *testing.T) {
		got, err := e.Moment(ctxT(t), mo.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Copy == nil || *got.Copy != *first || got.Original != nil {
			t.Errorf("moment copy = %+v original = %+v, want copy %+v", got.Copy, got.Original, first)
		}
	})
}

func TestIdempotency_KeepPhrase(t *testing.T) {
	e := openEngine(t, t.TempDir())
	first, created, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: "  Call  the Plumber "})
	if err != nil || !created {
		t.Fatalf("first keep: created=%v err=%v", created, err)
	}
	if first.ID != "keep:call the plumber" || first.Text != "Call the Plumber" {
		t.Errorf("phrase = %+v", first)
	}
	again, created, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: "call the plumber"})
	if err != nil || created {
		t.Fatalf("repeat: created=%v err=%v, want false, nil", created, err)
	}
	if *again != *first {
		t.Errorf("repeat = %+v, want %+v", again, first)
	}
	wantOps(t, e, map[string]int{api.OpPhraseKeep: 1})

	t.Run("Remove", func(t *testing.T) {
		for i, want := range []bool{true, false} {
			removed, err := e.RemovePhrase(ctxT(t), first.ID)
			if err != nil || removed != want {
				t.Fatalf("remove %d: removed=%v err=%v, want %v", i, removed, err, want)
			}
		}
		wantOps(t, e, map[string]int{api.OpPhraseKeep: 1, api.OpPhraseUnkeep: 1})
		ps, err := e.Phrases(ctxT(t))
		if err != nil || len(ps) != 0 {
			t.Errorf("phrases after remove = %v, %v; want none", ps, err)
		}
	})
}

func TestIdempotency_DeleteMoment(t *testing.T) {
	e := openEngine(t, t.TempDir())
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	for i, want := range []bool{true, false} {
		deleted, err := e.DeleteMoment(ctxT(t), mo.ID)
		if err != nil || deleted != want {
			t.Fatalf("delete %d: deleted=%v err=%v, want %v", i, deleted, err, want)
		}
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMomentDelete: 1})
	_, err := e.DeleteMoment(ctxT(t), newULID())
	wantCode(t, err, api.CodeNotFound)

	got, err := e.Moment(ctxT(t), mo.ID)
	if err != nil || got.DeletedAt == nil {
		t.Fatalf("GET a deleted moment = %+v, %v; want it with deleted_at", got, err)
	}
	page, _, err := e.Moments(ctxT(t), 50, "")
	if err != nil || len(page) != 0 {
		t.Errorf("list = %d moments, %v; deleted moments are not listed", len(page), err)
	}
}

func TestIdempotency_EditMoment(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	e := openEngine(t, t.TempDir(), func(c *Config) { c.Now = clock })
	taken := time.Date(2026, 4, 30, 18, 5, 0, 0, time.FixedZone("", 2*3600))
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID(), Caption: "gas bill", TakenAt: &taken})

	caption := "gas bill"
	same, _, err := e.EditMoment(ctxT(t), mo.ID, api.EditMomentRequest{Caption: &caption, TakenAt: &taken})
	if err != nil {
		t.Fatal(err)
	}
	if !same.UpdatedAt.Equal(mo.UpdatedAt) {
		t.Errorf("updated_at moved from %v to %v on an edit with the same values", mo.UpdatedAt, same.UpdatedAt)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1})

	caption = "gas bill, paid"
	edited, _, err := e.EditMoment(ctxT(t), mo.ID, api.EditMomentRequest{Caption: &caption})
	if err != nil {
		t.Fatal(err)
	}
	if edited.Caption != caption || !edited.UpdatedAt.After(mo.UpdatedAt) || !edited.TakenAt.Equal(taken) {
		t.Errorf("edited = %+v", edited)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMomentEdit: 1})

	_, _, err = e.EditMoment(ctxT(t), newULID(), api.EditMomentRequest{Caption: &caption})
	wantCode(t, err, api.CodeNotFound)
}

func TestRequestIDReused(t *testing.T) {
	e := openEngine(t, t.TempDir())
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID(), ClientRequestID: "r1"})
	if _, _, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := e.StartTurn(ctxT(t), mo.ID, api.StartTurnRequest{ClientRequestID: "r1", Mode: api.ModePractical})
	wantCode(t, err, api.CodeRequestIDReused)
	_, _, err = e.StartJob(ctxT(t), mo.ID, "r1")
	wantCode(t, err, api.CodeRequestIDReused)
	_, _, _, err = e.StartRecall(ctxT(t), "r1")
	wantCode(t, err, api.CodeRequestIDReused)

	if _, _, err := e.StartTurn(ctxT(t), mo.ID, api.StartTurnRequest{ClientRequestID: "t1", Mode: api.ModePractical}); err != nil {
		t.Fatal(err)
	}
	_, _, err = e.CreateMoment(ctxT(t), api.CreateMomentRequest{ClientRequestID: "t1", Kind: api.KindNote})
	wantCode(t, err, api.CodeRequestIDReused)
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpPhraseKeep: 1, api.OpTurnStart: 1})
}

// TestBadInput checks that every malformed input gets its code and writes
// nothing.
func TestBadInput(t *testing.T) {
	e := openEngine(t, t.TempDir())
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	before := opCounts(t, e)
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name string
		call func() error
		code string
	}{
		{"CreateBadID", func() error {
			_, _, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{ID: "not-a-ulid", Kind: api.KindPhoto})
			return err
		}, api.CodeBadID},
		{"CreateBadRequestID", func() error {
			_, _, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{ClientRequestID: "a b", Kind: api.KindPhoto})
			return err
		}, api.CodeBadID},
		{"CreateRequestIDTooLong", func() error {
			_, _, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{ClientRequestID: long(81), Kind: api.KindPhoto})
			return err
		}, api.CodeBadID},
		{"CreateBadCopyID", func() error {
			_, _, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{Kind: api.KindPhoto, CopyID: "../../etc/passwd"})
			return err
		}, api.CodeBadID},
		{"CreateBadKind", func() error {
			_, _, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{Kind: "video"})
			return err
		}, api.CodeBadKind},
		{"CreateBadTakenAt", func() error {
			_, _, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{Kind: api.KindPhoto, TakenAt: &far})
			return err
		}, api.CodeBadTakenAt},
		{"GetBadID", func() error { _, err := e.Moment(ctxT(t), "x"); return err }, api.CodeBadID},
		{"GetUnknown", func() error { _, err := e.Moment(ctxT(t), newULID()); return err }, api.CodeNotFound},
		{"ListBadLimit", func() error { _, _, err := e.Moments(ctxT(t), 201, ""); return err }, api.CodeBadLimit},
		{"ListBadBefore", func() error { _, _, err := e.Moments(ctxT(t), 10, "zz"); return err }, api.CodeBadID},
		{"DeleteBadID", func() error { _, err := e.DeleteMoment(ctxT(t), "1"); return err }, api.CodeBadID},
		{"PutBadID", func() error {
			_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: "x", MomentID: mo.ID, Role: api.RoleCopy, Body: strings.NewReader("x")})
			return err
		}, api.CodeBadID},
		{"PutNoMoment", func() error {
			_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: newULID(), Role: api.RoleCopy, Body: strings.NewReader("x")})
			return err
		}, api.CodeBadID},
		{"PutBadRole", func() error {
			_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: newULID(), MomentID: mo.ID, Role: "thumb", Body: strings.NewReader("x")})
			return err
		}, api.CodeBadRole},
		{"PutUnknownMoment", func() error {
			_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: newULID(), MomentID: newULID(), Role: api.RoleCopy, Body: strings.NewReader("x")})
			return err
		}, api.CodeUnknownMoment},
		{"PutBadDigestLength", func() error {
			_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: newULID(), MomentID: mo.ID, Role: api.RoleCopy, Body: strings.NewReader("x"), Digest: []byte{1, 2}})
			return err
		}, api.CodeBadDigest},
		{"TurnBadMode", func() error {
			_, _, err := e.StartTurn(ctxT(t), mo.ID, api.StartTurnRequest{ClientRequestID: "t", Mode: "careful"})
			return err
		}, api.CodeBadMode},
		{"TurnNoRequestID", func() error {
			_, _, err := e.StartTurn(ctxT(t), mo.ID, api.StartTurnRequest{Mode: api.ModePractical})
			return err
		}, api.CodeBadID},
		{"TurnUnknownMoment", func() error {
			_, _, err := e.StartTurn(ctxT(t), newULID(), api.StartTurnRequest{ClientRequestID: "t", Mode: api.ModePractical})
			return err
		}, api.CodeNotFound},
		{"GetTurnBadID", func() error { _, err := e.Turn(ctxT(t), "a/b"); return err }, api.CodeBadID},
		{"RecallIDTooLong", func() error { _, _, _, err := e.StartRecall(ctxT(t), long(71)); return err }, api.CodeBadID},
		{"RecallNoPhrases", func() error { _, _, _, err := e.StartRecall(ctxT(t), long(70)); return err }, api.CodeNoPhrases},
		{"JobIDTooLong", func() error { _, _, err := e.StartJob(ctxT(t), mo.ID, long(65)); return err }, api.CodeBadID},
		{"JobUnknownMoment", func() error { _, _, err := e.StartJob(ctxT(t), newULID(), long(64)); return err }, api.CodeNotFound},
		{"PhraseEmpty", func() error { _, _, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: " \t"}); return err }, api.CodeBadText},
		{"PhraseTooLong", func() error { _, _, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: long(76)}); return err }, api.CodeBadID},
		{"PhraseUnknownMoment", func() error {
			_, _, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: "hi", MomentID: newULID()})
			return err
		}, api.CodeUnknownMoment},
		{"RemovePhraseBadID", func() error { _, err := e.RemovePhrase(ctxT(t), "keep:Not Normal"); return err }, api.CodeBadID},
		{"OpsBadLimit", func() error { _, _, err := e.Ops(ctxT(t), 0, 1001); return err }, api.CodeBadLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, tt.call(), tt.code)
		})
	}
	if diff := opCounts(t, e); fmt.Sprint(diff) != fmt.Sprint(before) {
		t.Errorf("bad input wrote ops: before %v, after %v", before, diff)
	}
}

func TestPutMedia_Refusals(t *testing.T) {
	e := openEngine(t, t.TempDir(), func(c *Config) { c.MaxMediaSize = 1000 })
	copyID, originalID := newULID(), newULID()
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID(), CopyID: copyID, OriginalID: originalID})
	other := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	body := smallJPEG(t, 3)

	t.Run("DigestMismatchStoresNothing", func(t *testing.T) {
		wrong := sha256.Sum256([]byte("something else"))
		_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: copyID, MomentID: mo.ID, Role: api.RoleCopy, Body: bytes.NewReader(body), Digest: wrong[:]})
		wantCode(t, err, api.CodeDigestMismatch)
		sum := sha256.Sum256(body)
		if _, err := os.Stat(blobPath(t, e, fmt.Sprintf("%x", sum))); !os.IsNotExist(err) {
			t.Errorf("a blob was stored despite the digest mismatch (stat: %v)", err)
		}
		assertNoStagedFiles(t, e)
		wantOps(t, e, map[string]int{api.OpMomentCreate: 2})
	})
	t.Run("TooLarge", func(t *testing.T) {
		_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: copyID, MomentID: mo.ID, Role: api.RoleCopy, Body: bytes.NewReader(make([]byte, 1001))})
		wantCode(t, err, api.CodeMediaTooLarge)
		assertNoStagedFiles(t, e)
	})
	t.Run("ReservedForAnotherMoment", func(t *testing.T) {
		_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: copyID, MomentID: other.ID, Role: api.RoleCopy, Body: bytes.NewReader(body)})
		wantCode(t, err, api.CodeMediaConflict)
	})
	t.Run("ReservedForTheOtherRole", func(t *testing.T) {
		_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: copyID, MomentID: mo.ID, Role: api.RoleOriginal, Body: bytes.NewReader(body)})
		wantCode(t, err, api.CodeMediaConflict)
	})
	t.Run("MomentNamesAnotherCopy", func(t *testing.T) {
		_, _, err := e.PutMedia(ctxT(t), PutMedia{ID: newULID(), MomentID: mo.ID, Role: api.RoleCopy, Body: bytes.NewReader(body)})
		wantCode(t, err, api.CodeMediaConflict)
	})
	t.Run("CreateReusingAMediaID", func(t *testing.T) {
		_, _, err := e.CreateMoment(ctxT(t), api.CreateMomentRequest{Kind: api.KindPhoto, CopyID: copyID})
		wantCode(t, err, api.CodeBadMediaRef)
	})
	t.Run("ReservedIDStores", func(t *testing.T) {
		md := mustPut(t, e, copyID, mo.ID, api.RoleCopy, body)
		got, err := e.Moment(ctxT(t), mo.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Copy == nil || *got.Copy != *md {
			t.Errorf("moment copy = %+v, want %+v", got.Copy, md)
		}
		wantOps(t, e, map[string]int{api.OpMomentCreate: 2, api.OpMediaPut: 1})
	})
}

// assertNoStagedFiles checks that refused uploads left no temp file.
func assertNoStagedFiles(tb testing.TB, e *Engine) {
	tb.Helper()
	n := 0
	err := walkFiles(e.media.Dir(), func(string) { n++ })
	if err != nil {
		tb.Fatal(err)
	}
	blobs := 0
	if err := e.media.Walk(ctxT(tb), func(string, int64) error { blobs++; return nil }); err != nil {
		tb.Fatal(err)
	}
	if n != blobs {
		tb.Errorf("the media directory holds %d files but only %d blobs: a refused upload left a file", n, blobs)
	}
}

func TestMoments_Pages(t *testing.T) {
	e := openEngine(t, t.TempDir())
	var ids []string
	for range 7 {
		ids = append(ids, mustCreate(t, e, api.CreateMomentRequest{}).ID)
	}
	if _, err := e.DeleteMoment(ctxT(t), ids[3]); err != nil {
		t.Fatal(err)
	}
	var got []string
	before := ""
	for pages := 0; ; pages++ {
		page, next, err := e.Moments(ctxT(t), 2, before)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			got = append(got, m.ID)
		}
		if next == nil {
			break
		}
		before = *next
		if pages > 10 {
			t.Fatal("the pages never end")
		}
	}
	want := []string{ids[6], ids[5], ids[4], ids[2], ids[1], ids[0]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pages = %v, want %v (newest first, the deleted one left out)", got, want)
	}
}

func TestOps_Pages(t *testing.T) {
	e := openEngine(t, t.TempDir())
	for i := range 5 {
		mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: fmt.Sprintf("r%d", i)})
	}
	ops, next, err := e.Ops(ctxT(t), 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 3 || next == nil || *next != 3 || ops[0].Seq != 1 || ops[0].Op != api.OpMomentCreate || ops[0].ClientRequestID != "r0" {
		t.Fatalf("first page = %+v next %v", ops, next)
	}
	ops, next, err = e.Ops(ctxT(t), *next, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || next != nil || ops[1].Seq != 5 {
		t.Fatalf("last page = %+v next %v", ops, next)
	}
	h := e.Health(ctxT(t))
	if !h.OK || h.Seq != 5 {
		t.Errorf("health = %+v", h)
	}
}

// A deleted moment takes the writes that complete a capture, so that a
// delivery finishing after a delete is not refused (docs/API.md, DELETE
// /v1/moments/{id}); and an edit, whatever it says, brings it back from
// Recently deleted rather than drop what was typed.
func TestDeletedMoment_Writes(t *testing.T) {
	p := pippatest.New(t)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	ctx := ctxT(t)
	for _, c := range []string{"the letter", "another"} {
		mo := mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindPhoto, Caption: "the letter"})
		if deleted, err := e.DeleteMoment(ctx, mo.ID); err != nil || !deleted {
			t.Fatalf("delete: %v %v", deleted, err)
		}
		got, restored, err := e.EditMoment(ctx, mo.ID, api.EditMomentRequest{Caption: &c})
		if err != nil || !restored || got.DeletedAt != nil || got.Caption != c {
			t.Fatalf("edit %q of a deleted moment = %+v, restored %v, %v; want it back, with the caption", c, got, restored, err)
		}
	}
	mo := mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindPhoto, Caption: "the letter"})
	if deleted, err := e.DeleteMoment(ctx, mo.ID); err != nil || !deleted {
		t.Fatalf("delete: %v %v", deleted, err)
	}
	before := opCounts(t, e)
	mustPut(t, e, newULID(), mo.ID, api.RoleCopy, smallJPEG(t, 3))
	if _, created, err := e.StartTurn(ctx, mo.ID, api.StartTurnRequest{ClientRequestID: "late-turn", Mode: api.ModePractical}); err != nil || !created {
		t.Errorf("turn on a deleted moment: created=%v err=%v", created, err)
	}
	if _, created, err := e.StartJob(ctx, mo.ID, "late-job"); err != nil || !created {
		t.Errorf("job on a deleted moment: created=%v err=%v", created, err)
	}
	if _, created, err := e.KeepPhrase(ctx, api.KeepPhraseRequest{Text: "late words", MomentID: mo.ID}); err != nil || !created {
		t.Errorf("phrase from a deleted moment: created=%v err=%v", created, err)
	}
	after := opCounts(t, e)
	for op, n := range map[string]int{api.OpMediaPut: 1, api.OpTurnStart: 2, api.OpPhraseKeep: 1, api.OpMomentEdit: 0} {
		if after[op]-before[op] != n {
			t.Errorf("%s lines: %d more, want %d more", op, after[op]-before[op], n)
		}
	}
}
