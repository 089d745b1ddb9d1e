package wordsphotos

import (
	"bytes"
	"context"
	"github.com/sparkfamily/spark/internal/racebuild"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// some is what -short makes: a letter and a sign, one
// of them with a PNG.
var some = []string{"letter-1", "sign-2"}

func TestGenerate_EachPhotoHasItsText(t *testing.T) {
	racebuild.Heavy(t, "draws photos in one goroutine")
	dir := t.TempDir()
	var only []string
	if testing.Short() {
		only = some
	}
	ps, err := generate(dir, only)
	if err != nil {
		t.Fatal(err)
	}
	if only == nil {
		kinds := map[string]int{}
		files := 0
		for _, p := range ps {
			kinds[p.Kind]++
			files += len(p.Files)
		}
		for _, k := range Kinds {
			if kinds[k] < 3 {
				t.Errorf("%d scenes of kind %s, want 3 or more", kinds[k], k)
			}
		}
		if files < 9 || files > 12 {
			t.Errorf("%d photos, want 9 to 12", files)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, p := range ps {
		if !slices.Contains(Kinds, p.Kind) || !strings.HasPrefix(p.Name, p.Kind+"-") {
			t.Errorf("%s: kind %q: the bench takes a photo's kind from its name", p.Name, p.Kind)
		}
		txt, err := os.ReadFile(filepath.Join(dir, p.Name+".txt"))
		if err != nil {
			t.Fatalf("%s has no .txt: %v (in %s)", p.Name, err, names)
		}
		if string(txt) != p.Text || len(Words(p.Text)) < 5 {
			t.Errorf("%s.txt = %q, want its text (%q), of 5 words or more", p.Name, txt, p.Text)
		}
		if !slices.Contains(p.Files, filepath.Join(dir, p.Name+".jpg")) {
			t.Errorf("%s: no JPEG in %q", p.Name, p.Files)
		}
		for _, f := range p.Files {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(fh)
			fh.Close()
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if format != map[string]string{".jpg": "jpeg", ".png": "png"}[filepath.Ext(f)] {
				t.Errorf("%s is a %s", f, format)
			}
			if max(cfg.Width, cfg.Height) < 1000 {
				t.Errorf("%s is %dx%d, smaller than a camera's small copy", f, cfg.Width, cfg.Height)
			}
			if p.Kind == "letter" && cfg.Width != 1600 {
				t.Errorf("%s is %d pixels wide, want a letter 1,600 wide", f, cfg.Width)
			}
		}
	}
	for _, n := range names {
		base := strings.TrimSuffix(n, filepath.Ext(n))
		if !slices.Contains(names, base+".txt") {
			t.Errorf("%s has no %s.txt beside it", n, base)
		}
	}
	// What the issue names: a reference and an account number.
	if p := ps[slices.IndexFunc(ps, func(p Photo) bool { return p.Name == "letter-1" })]; !strings.Contains(p.Text, "RD/7731/Q") || !strings.Contains(p.Text, "Account number 4417 0923 8815") {
		t.Errorf("letter-1's text lacks its reference or account number: %q", p.Text)
	}
}

func TestGenerate_SameBytesEachTime(t *testing.T) {
	racebuild.Heavy(t, "draws photos in one goroutine")
	var only []string
	if testing.Short() {
		only = some
	}
	a, b := t.TempDir(), t.TempDir()
	if _, err := generate(a, only); err != nil {
		t.Fatal(err)
	}
	if _, err := generate(b, only); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("nothing made")
	}
	for _, e := range entries {
		x, err := os.ReadFile(filepath.Join(a, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, e.Name()))
		if err != nil {
			t.Fatalf("made once, not twice: %v", err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs from one run to the next", e.Name())
		}
	}
}

// TestTesseractReadsALetter checks the photos are fair: Debian's
// tesseract reads the printed letter with under 5% character errors.
func TestTesseractReadsALetter(t *testing.T) {
	racebuild.Heavy(t, "draws a photo in one goroutine")
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("no tesseract CLI here (apt-get install tesseract-ocr tesseract-ocr-eng; scripts/setup.sh installs it)")
	}
	dir := t.TempDir()
	ps, err := generate(dir, []string{"letter-1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tesseract", filepath.Join(dir, "letter-1.jpg"), "stdout", "--oem", "1", "-l", "eng")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tesseract: %v: %s", err, errb.String())
	}
	s := Compare(ps[0].Text, string(out))
	t.Logf("tesseract on letter-1.jpg: CER %.2f%% (%d edits of %d), %d of %d words found", 100*s.CER(), s.Edits, s.Chars, s.Found, s.Words)
	if s.CER() >= 0.05 {
		t.Errorf("CER %.1f%%, want under 5%%; read:\n%s", 100*s.CER(), out)
	}
	if !strings.Contains(string(out), "RD/7731/Q") {
		t.Errorf("the reference RD/7731/Q was not read:\n%s", out)
	}
}
