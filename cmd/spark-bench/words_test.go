package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestListWordsPhotos(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"sign-1.jpg": "x", "sign-1.txt": "EXIT",
		"letter-2.JPG": "x", "letter-2.txt": "Dear Mr Hartley",
		"letter-1.png": "x", "letter-1.heic": "x", "letter-1.jpg": "x", "letter-1.txt": "Severn Water",
		"label-1.jpeg": "x", "label-1.txt": "1 LITRE",
		"camera.jpg": "x",                  // no true text: not read
		"notes.txt":  "x",                  // no photo
		"menu.webp":  "x", "menu.txt": "x", // not a kind the bench takes
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := listWordsPhotos(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%s:%s:%s:%v", p.kind, p.name, p.truth, p.again))
	}
	want := []string{
		"letter:letter-1.jpg:Severn Water:false", "letter:letter-1.heic:Severn Water:true", "letter:letter-1.png:Severn Water:true",
		"letter:letter-2.JPG:Dear Mr Hartley:false", "label:label-1.jpeg:1 LITRE:false", "sign:sign-1.jpg:EXIT:false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("listWordsPhotos =\n%q\nwant\n%q", got, want)
	}
	if _, err := listWordsPhotos(t.TempDir()); err == nil || !strings.Contains(err.Error(), "NAME.txt") {
		t.Errorf("an empty folder: %v, want an error that says what is looked for", err)
	}
}

func TestWordsPhotos_NeedsOut(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"words-photos"}, &out); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("words-photos with no --out: %v", err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"list"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"  words ", "  words-photos "} {
		if !strings.Contains(out.String(), n) {
			t.Errorf("list does not name %q:\n%s", n, out.String())
		}
	}
	if !benches["words-photos"].tool || benches["words"].tool {
		t.Error("words-photos is a tool, which all leaves out; words is a benchmark")
	}
}

func TestWordsPage(t *testing.T) {
	p := wordsPage("ocr-check-AbC.js", 3, 2)
	for _, want := range []string{"import '/assets/ocr-check-AbC.js'", "const n = 3, runs = 2;", "'photos/' + i + '.jpg'", "mark('result-' + i + '/'", "document.title = JSON.stringify(out)"} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestPSSSampler: the sampler keeps the peak of what it samples, per
// phase and in all (benchkit's tests cover reading /proc).
func TestPSSSampler(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	s := samplePSS(10*time.Millisecond, func() []int { return []int{os.Getpid()} })
	s.setPhase("a")
	time.Sleep(50 * time.Millisecond)
	peaks, all := s.finish()
	if peaks["a"] < 1024 || all < peaks["a"] {
		t.Errorf("peaks %v, all %d kB: this process's PSS was not sampled", peaks, all)
	}
}
