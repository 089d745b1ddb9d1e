package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/internal/racebuild"
)

// TestMain lets the test binary stand in for spark-bench when a bench
// runs itself as a child (such as the peak-memory child of smallcopy).
func TestMain(m *testing.M) {
	if isChild(os.Args[1:]) {
		if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// benchRun is why a test that runs a bench skips under the race detector
// (racebuild.Heavy): scripts/test.sh's resource step runs it without.
const benchRun = "runs a bench, whose figures the race detector distorts; the packages it drives race-check their own code"

func TestRun_Errors(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"nosuch"}, &out); err == nil || !strings.Contains(err.Error(), "smallcopy") {
		t.Errorf("run(nosuch) = %v, want an error naming the known benchmarks", err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"list"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "smallcopy") || strings.Contains(out.String(), "  _rss ") {
		t.Errorf("list = %q, want smallcopy and no hidden helper", out.String())
	}
}

// TestSmallCopyBench runs the smallcopy benchmark on two small generated
// photos, one of them rotated, and checks the table and the peak-memory
// lines come out.
func TestSmallCopyBench(t *testing.T) {
	racebuild.Heavy(t, benchRun)
	dir := t.TempDir()
	m := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 13)
	}
	m.Set(0, 0, color.White)
	write := func(name string, exif []byte) {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, m, nil); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		b = append(append(append([]byte{}, b[:2]...), exif...), b[2:]...)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An APP1 EXIF segment, little-endian, orientation 6.
	exif6 := []byte{0xff, 0xe1, 0, 34, 'E', 'x', 'i', 'f', 0, 0,
		'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0}
	write("plain.jpg", nil)
	write("turned.jpg", exif6)

	var out bytes.Buffer
	if err := run(context.Background(), []string{"smallcopy", "--photos", dir, "--runs", "1"}, &out); err != nil {
		t.Fatalf("smallcopy: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"plain.jpg", "turned.jpg", "ours 1w ms", "PSNR dB", "peak RSS", "turned.jpg:"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestCaptureBench runs the capture benchmark's batch on two generated
// 12 MP JPEGs and checks that the figure comes out beside its peer and
// its goal.
func TestCaptureBench(t *testing.T) {
	racebuild.Heavy(t, benchRun)
	if testing.Short() {
		t.Skip("makes two 12 MP JPEGs")
	}
	dir := t.TempDir()
	m := image.NewGray(image.Rect(0, 0, 4000, 3000))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 7)
	}
	for i, name := range []string{"a.jpg", "b.jpg"} {
		m.Pix[0] = uint8(i)
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 50}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	args := []string{"capture", "--photos", dir, "--capture-batch", "3", "--capture-runs", "1", "--capture-singles=false", "--capture-small", "20", "--dir", t.TempDir()}
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatalf("capture: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"3 photos safe", "peer s", "< 10 s", "a.jpg, b.jpg repeated", "load average", "20 tiny photos", "peer "} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
