package heifwasm

import (
	"bytes"
	"context"
	"errors"
	"image"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gen2brain/heic"
)

// quadrants is a 128x96 HEIC of one HEVC image (outbox/photo/testdata).
func quadrants(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/quadrants.heic")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeCopy decodes file and returns a copy of the picture.
func decodeCopy(ctx context.Context, p *Pool, file []byte) (*image.YCbCr, error) {
	var out *image.YCbCr
	err := p.Decode(ctx, file, func(m *image.YCbCr) error {
		out = image.NewYCbCr(m.Rect, m.SubsampleRatio)
		copy(out.Y, m.Y)
		copy(out.Cb, m.Cb)
		copy(out.Cr, m.Cr)
		if out.YStride != m.YStride || out.CStride != m.CStride {
			return errors.New("unexpected strides")
		}
		return nil
	})
	return out, err
}

// samePicture reports whether a and b hold the same pixels.
func samePicture(a, b *image.YCbCr) bool {
	if a.Rect != b.Rect || a.SubsampleRatio != b.SubsampleRatio {
		return false
	}
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			if a.YCbCrAt(x, y) != b.YCbCrAt(x, y) {
				return false
			}
		}
	}
	return true
}

// TestCompile_ModuleHasItsFunctions checks the module reached by name in
// the heic module is there and exports what Decode calls: an upgrade of
// that module that changed them fails here, not on a photo.
func TestCompile_ModuleHasItsFunctions(t *testing.T) {
	if len(moduleGz) == 0 {
		t.Fatal("the heic module's WebAssembly module is empty")
	}
	if err := Compile(); err != nil {
		t.Fatal(err)
	}
}

// TestDecode_SameAsHeicModule checks the picture is the one the heic
// module's own Decode makes of the file, but for the few pixels of the top
// row that its Decode spoils (photo.repairHEICCorner).
func TestDecode_SameAsHeicModule(t *testing.T) {
	file := quadrants(t)
	got, err := decodeCopy(context.Background(), NewPool(1), file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := heic.Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want, ok := img.(*image.YCbCr)
	if !ok {
		t.Fatalf("heic.Decode gave a %T", img)
	}
	// The heic module frees its output before returning it: its first
	// 32 bytes of Y are the allocator's. Compare from the second row.
	crop := image.Rect(0, 1, got.Rect.Dx(), got.Rect.Dy())
	if !samePicture(got.SubImage(crop).(*image.YCbCr), want.SubImage(crop).(*image.YCbCr)) {
		t.Fatal("the picture differs from the heic module's")
	}
}

// TestDecode_ReusesInstances decodes one after another: one instance does
// them all, and every picture is the same.
func TestDecode_ReusesInstances(t *testing.T) {
	file := quadrants(t)
	p := NewPool(2)
	first, err := decodeCopy(context.Background(), p, file)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		got, err := decodeCopy(context.Background(), p, file)
		if err != nil {
			t.Fatal(err)
		}
		if !samePicture(got, first) {
			t.Fatalf("decode %d differs from the first", i+2)
		}
	}
	wantInstances(t, p, 1, 1, "decodes one at a time")
}

// wantInstances checks how many instances p has started and how many
// live.
func wantInstances(t *testing.T, p *Pool, started, live int, after string) {
	t.Helper()
	if n := p.started.Load(); n != int64(started) {
		t.Errorf("%d instances started after %s, want %d", n, after, started)
	}
	if n := p.Live(); n != live {
		t.Errorf("%d instances live after %s, want %d", n, after, live)
	}
}

// TestDecode_Bounded runs many decodes at once: never more instances than
// the pool's size, and each picture right.
func TestDecode_Bounded(t *testing.T) {
	file := quadrants(t)
	p := NewPool(2)
	want, err := decodeCopy(context.Background(), p, file)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	most := 0
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for range 4 {
				got, err := decodeCopy(context.Background(), p, file)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				most = max(most, p.Live())
				mu.Unlock()
				if !samePicture(got, want) {
					errs <- errors.New("a picture differs")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if most > 2 || p.started.Load() > 2 {
		t.Errorf("%d instances live at once, %d started; want at most 2", most, p.started.Load())
	}
}

// TestDecode_DamagedFile checks a damaged file is an error and leaves the
// pool able to decode the next file.
func TestDecode_DamagedFile(t *testing.T) {
	file := quadrants(t)
	p := NewPool(1)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"Empty", nil},
		{"NotHEIF", []byte("this is not a picture at all, only words")},
		{"CutShort", file[:len(file)/2]},
		{"NoiseInData", func() []byte {
			b := bytes.Clone(file)
			for i := len(b) - 200; i < len(b); i += 3 {
				b[i] ^= 0x5a
			}
			return b
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeCopy(context.Background(), p, tc.data)
			if tc.name == "NoiseInData" && err == nil {
				return // HEVC may decode damaged data to a damaged picture
			}
			if err == nil {
				t.Fatal("decoded a damaged file without an error")
			}
			if _, err := decodeCopy(context.Background(), p, file); err != nil {
				t.Fatalf("the good file after the damaged one: %v", err)
			}
		})
	}
}

// TestDecode_VisitError checks the caller's error comes back as it is and
// the instance is kept.
func TestDecode_VisitError(t *testing.T) {
	p := NewPool(1)
	mine := errors.New("mine")
	if err := p.Decode(context.Background(), quadrants(t), func(*image.YCbCr) error { return mine }); err != mine {
		t.Fatalf("Decode = %v, want the visit's error itself", err)
	}
	if _, err := decodeCopy(context.Background(), p, quadrants(t)); err != nil {
		t.Fatal(err)
	}
	wantInstances(t, p, 1, 1, "a visit's error (it leaves the instance sound)")
}

// TestDecode_WaitsUntilDone checks a decode waiting for the one instance
// gives up when its ctx is done.
func TestDecode_WaitsUntilDone(t *testing.T) {
	file := quadrants(t)
	p := NewPool(1)
	holding, free := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- p.Decode(context.Background(), file, func(*image.YCbCr) error {
			close(holding)
			<-free
			return nil
		})
	}()
	<-holding
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := decodeCopy(ctx, p, file); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a decode waiting for the busy instance = %v, want the deadline's error", err)
	}
	close(free)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := decodeCopy(context.Background(), p, file); err != nil {
		t.Fatal(err)
	}
}

// TestDecode_RenewsGrownInstance checks an instance whose memory passed
// the cap is closed and a new one started for the next decode.
func TestDecode_RenewsGrownInstance(t *testing.T) {
	file := quadrants(t)
	p := NewPool(1)
	p.memCap = 1 // every instance has grown past it after a decode
	for range 3 {
		if _, err := decodeCopy(context.Background(), p, file); err != nil {
			t.Fatal(err)
		}
	}
	wantInstances(t, p, 3, 0, "3 decodes past the memory cap")
}

// TestDecode_ClosesIdleInstances checks the instances are closed once
// nothing has decoded for the idle time-out.
func TestDecode_ClosesIdleInstances(t *testing.T) {
	file := quadrants(t)
	p := NewPool(2)
	p.idleTimeout = 20 * time.Millisecond
	if _, err := decodeCopy(context.Background(), p, file); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.Live() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d instances still live long after the idle time-out", p.Live())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// And the pool starts a new one when asked again.
	if _, err := decodeCopy(context.Background(), p, file); err != nil {
		t.Fatal(err)
	}
}
