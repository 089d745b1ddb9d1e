package outbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// syncLog records a capture's fsyncs: files by the path they were
// written at, directories with the entries they held when synced.
type syncLog struct {
	mu    sync.Mutex
	files map[string]bool // staging/<id>/<name>
	dirs  map[string]bool // staging/<id>, and files/<id> for each entry in files/ when files/ was synced
	n     map[string]int  // syncs per directory
}

// watchSyncs makes o's files and syncDir report to a new syncLog until
// the test ends.
func watchSyncs(t *testing.T, o *Outbox) *syncLog {
	t.Helper()
	l := &syncLog{files: map[string]bool{}, dirs: map[string]bool{}, n: map[string]int{}}
	o.create = func(name string) (writeFile, error) {
		f, err := createFile(name)
		if err != nil {
			return nil, err
		}
		return &loggedFile{File: f.(*os.File), log: l, name: rel(o, name)}, nil
	}
	real := syncDir
	syncDir = func(dir string) error {
		if err := real(dir); err != nil {
			return err
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		r := rel(o, dir)
		l.n[r]++
		l.dirs[r] = true
		if r == "files" {
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				l.dirs["files/"+e.Name()] = true
			}
		}
		return nil
	}
	t.Cleanup(func() { syncDir = real })
	return l
}

func rel(o *Outbox, p string) string {
	r, _ := filepath.Rel(o.Dir(), p)
	return filepath.ToSlash(r)
}

type loggedFile struct {
	*os.File
	log  *syncLog
	name string
}

func (f *loggedFile) Sync() error {
	err := f.File.Sync()
	if err == nil {
		f.log.mu.Lock()
		f.log.files[f.name] = true
		f.log.mu.Unlock()
	}
	return err
}

// durable says what of entry id was not yet durable, or "".
func (l *syncLog) durable(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var missing []string
	for _, want := range []string{"staging/" + id + "/" + originalName, "staging/" + id + "/" + copyName} {
		if !l.files[want] {
			missing = append(missing, "fsync of "+want)
		}
	}
	for _, want := range []string{"staging/" + id, "files/" + id} {
		if !l.dirs[want] {
			missing = append(missing, "directory sync holding "+want)
		}
	}
	return strings.Join(missing, ", ")
}

// TestCapture_ReportedOnlyWhenDurable captures a folder with two workers
// (so that captures are committed in batches) and checks, at the moment
// each is reported, that its files and their directory entries were
// synced and its row is committed.
func TestCapture_ReportedOnlyWhenDurable(t *testing.T) {
	o := openTest(t, "", testOptions())
	l := watchSyncs(t, o)
	src := t.TempDir()
	for i := range 24 {
		writePhoto(t, src, fmt.Sprintf("p%02d.jpg", i), uint64(100+i))
	}
	ctx := context.Background()
	var problems []string
	res := o.Capture(ctx, []string{src}, CaptureOptions{OnResult: func(r CaptureResult) {
		if r.Err != nil || r.Entry == nil {
			problems = append(problems, fmt.Sprintf("%s: %+v", r.Path, r))
			return
		}
		if m := l.durable(r.Entry.ID); m != "" {
			problems = append(problems, fmt.Sprintf("%s reported before: %s", r.Path, m))
		}
		if e, err := o.Entry(ctx, r.Entry.ID); err != nil || e.SHA256 != r.Entry.SHA256 {
			problems = append(problems, fmt.Sprintf("%s reported before its row was committed: %v", r.Path, err))
		}
		for _, name := range []string{originalName, copyName} {
			if _, err := os.Stat(filepath.Join(o.Dir(), "files", r.Entry.ID, name)); err != nil {
				problems = append(problems, fmt.Sprintf("%s reported before it was placed: %v", r.Path, err))
			}
		}
	}})
	for _, p := range problems {
		t.Error(p)
	}
	if len(res) != 24 {
		t.Fatalf("%d results, want 24", len(res))
	}
	if got := listDir(t, filepath.Join(o.Dir(), "staging")); len(got) != 0 {
		t.Errorf("staging holds %v after the import", got)
	}
}

// stageAll stages n generated photos for a commit test, and returns them
// with a reporter whose results the test reads.
func stageAll(t *testing.T, o *Outbox, n int) ([]staged, *reporter) {
	t.Helper()
	src := t.TempDir()
	var batch []staged
	for i := range n {
		p := writePhoto(t, src, fmt.Sprintf("s%d.jpg", i), uint64(200+i))
		c, dup, err := o.stage(context.Background(), p, false)
		if err != nil || dup != "" {
			t.Fatalf("stage %s: %v %q", p, err, dup)
		}
		batch = append(batch, staged{i: i, c: c})
	}
	return batch, &reporter{results: make([]CaptureResult, n)}
}

// TestCommitter_OneBatch commits staged captures as one batch: files/ is
// synced once and every entry is recorded.
func TestCommitter_OneBatch(t *testing.T) {
	o := openTest(t, "", testOptions())
	l := watchSyncs(t, o)
	batch, rep := stageAll(t, o, 5)
	cm := &committer{o: o, ctx: context.Background(), rep: rep}
	cm.commit(batch)
	if l.n["files"] != 1 {
		t.Errorf("files/ synced %d times for a batch of 5, want once", l.n["files"])
	}
	for i, r := range rep.results {
		if r.Err != nil || r.Entry == nil {
			t.Fatalf("result %d = %+v", i, r)
		}
		if _, err := o.Entry(context.Background(), r.Entry.ID); err != nil {
			t.Errorf("entry %d not recorded: %v", i, err)
		}
	}
}

// TestCommitter_OneBadEntry: when one entry of a batch cannot be recorded,
// the others still are, and only that capture fails, its files removed.
func TestCommitter_OneBadEntry(t *testing.T) {
	o := openTest(t, "", testOptions())
	src := t.TempDir()
	first := mustCapture(t, o, writePhoto(t, src, "first.jpg", 1))[0].Entry
	batch, rep := stageAll(t, o, 3)
	bad := batch[1].c
	bad.e.ID = first.ID // the row cannot be inserted: the id is taken
	cm := &committer{o: o, ctx: context.Background(), rep: rep}
	cm.commit(batch)
	for _, i := range []int{0, 2} {
		if r := rep.results[i]; r.Err != nil || r.Entry == nil {
			t.Errorf("result %d = %+v, want recorded", i, r)
		}
	}
	r := rep.results[1]
	if r.Err == nil || r.Entry != nil || !strings.Contains(r.Err.Error(), "record it in the outbox") {
		t.Errorf("result 1 = %+v, want an error recording it", r)
	}
	if _, err := os.Stat(bad.final); !os.IsNotExist(err) {
		t.Errorf("the failed capture's folder is still there (%v)", err)
	}
	ents, err := o.Entries(context.Background())
	if err != nil || len(ents) != 3 {
		t.Errorf("%d entries (%v), want 3", len(ents), err)
	}
	if got := listDir(t, filepath.Join(o.Dir(), "files")); len(got) != 3 {
		t.Errorf("files/ = %v, want 3 entries", got)
	}
}
