// Package heifwasm decodes HEIF images with the WebAssembly build of
// libheif and libde265 that github.com/gen2brain/heic carries, through a
// small pool of module instances that live from one decode to the next.
//
// The heic module's own Decode instantiates a fresh module for every call:
// a new linear memory, grown and copied as libde265 allocates, then thrown
// away. For the 48 tiles of an iPhone photo that is some 440 MB of garbage
// a photo, a garbage collection every few tiles, and each collection's
// stop-the-world waits for every goroutine inside WebAssembly code to come
// out of it (it cannot be preempted there): about a fifth of the decode's
// wall time went to those waits. An instance kept for the next tile reuses
// the memory it has grown, so a photo makes almost no garbage.
//
// Only the module is taken from the heic module (it is not exported, so
// it is reached by name; a test checks that it is there and has the
// functions used here). The calling convention is the one of its decode
// function (lib/heif.c in that module): decode(in, in_size, config_only,
// &width, &height, &colorspace, &chroma, &premultiplied, out), answering 1
// on success, which copies the planes of a YCbCr picture into out, Y then
// Cb then Cr, each row padded to a multiple of 16 bytes.
package heifwasm

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname

	_ "github.com/gen2brain/heic" // the module below
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// moduleGz is the gzipped WebAssembly module the heic module embeds.
//
//go:linkname moduleGz github.com/gen2brain/heic.heifWasm
var moduleGz []byte

// Values of libheif's heif_colorspace and heif_chroma that decode reports.
const (
	colorspaceYCbCr = 0
	chroma420       = 1
	chroma422       = 2
	chroma444       = 3
)

// rowAlign is the padding of each plane's rows in decode's output.
const rowAlign = 16

// maxInstanceMemory is the linear memory past which an instance is closed
// rather than kept: the module's decode does not release the picture it
// decoded, so an instance grows by one picture a call (0.4 MB for an
// iPhone's 512x512 tile) and is renewed every few tiles. Starting one
// costs far less than a tile's decode; the memory they hold stays that of
// a few pictures. (Measured on the iPhone photo: a small copy's peak RSS
// 90 MB with 4 MB, 101 MB with 8, 108 MB with 16; no time told apart.)
const maxInstanceMemory = 4 << 20

// maxPicture bounds the bytes of a decoded picture: the module's memory is
// 32-bit, and callers check the pixel count before decoding.
const maxPicture = 1 << 30

// idleTimeout is how long instances are kept once no decode has used
// them: a burst of photos reuses them, and their memory is let go after.
const idleTimeout = 30 * time.Second

// ErrUnsupported is returned for a picture that decode gives in another
// form than YCbCr (RGB, monochrome).
var ErrUnsupported = errors.New("heifwasm: not a YCbCr picture")

// ErrDecode is returned when libheif refuses the file or cannot decode
// its picture.
var ErrDecode = errors.New("heifwasm: the decoder could not read the picture")

// Pool decodes HEIF files with up to n module instances at once (NewPool).
// Its methods are safe for concurrent use.
type Pool struct {
	slots chan struct{}  // a token for each live instance: at most n
	idle  chan *instance // live instances no decode uses

	memCap      uint32        // maxInstanceMemory
	idleTimeout time.Duration // idleTimeout
	started     atomic.Int64  // instances started, for tests

	mu    sync.Mutex
	busy  int         // decodes in progress
	timer *time.Timer // closes idle instances idleTimeout after the last decode
}

// NewPool returns a pool of at most n instances (at least one). Nothing
// is compiled until the first Decode or Compile.
func NewPool(n int) *Pool {
	n = max(n, 1)
	return &Pool{
		slots: make(chan struct{}, n), idle: make(chan *instance, n),
		memCap: maxInstanceMemory, idleTimeout: idleTimeout,
	}
}

// module is the compiled module, shared by every pool.
var module struct {
	once sync.Once
	err  error
	rt   wazero.Runtime
	cm   wazero.CompiledModule
}

// Compile compiles the module (about half a second, once for the
// program): Decode does it if need be, and a caller may do it ahead.
func Compile() error {
	module.once.Do(func() { module.rt, module.cm, module.err = compile(context.Background()) })
	return module.err
}

func compile(ctx context.Context) (wazero.Runtime, wazero.CompiledModule, error) {
	zr, err := gzip.NewReader(bytes.NewReader(moduleGz))
	if err != nil {
		return nil, nil, fmt.Errorf("heifwasm: the decoder module: %w", err)
	}
	bin, err := io.ReadAll(zr)
	if err != nil {
		return nil, nil, fmt.Errorf("heifwasm: the decoder module: %w", err)
	}
	rt := wazero.NewRuntime(ctx)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, nil, fmt.Errorf("heifwasm: start WASI: %w", err)
	}
	cm, err := rt.CompileModule(ctx, bin)
	if err != nil {
		rt.Close(ctx)
		return nil, nil, fmt.Errorf("heifwasm: compile the decoder: %w", err)
	}
	for _, name := range []string{"malloc", "free", "decode"} {
		if _, ok := cm.ExportedFunctions()[name]; !ok {
			rt.Close(ctx)
			return nil, nil, fmt.Errorf("heifwasm: the decoder module has no function %q", name)
		}
	}
	return rt, cm, nil
}

// instance is one module instance and its functions.
type instance struct {
	mod                  api.Module
	malloc, free, decode api.Function
	lastUse              time.Time
}

// Decode decodes the primary image of the HEIF file in file and calls
// visit with its planes, as stored (libheif applies the file's rotation
// and mirroring to the primary image: give it a file whose image has
// none to keep them for later). The picture lives in the instance's
// memory: it is valid only until visit returns, which must copy what it
// keeps. Decode waits for a free instance while n decodes run, until ctx
// is done.
func (p *Pool) Decode(ctx context.Context, file []byte, visit func(*image.YCbCr) error) error {
	if err := Compile(); err != nil {
		return err
	}
	p.begin()
	defer p.end()
	in, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	sound, err := in.run(ctx, file, visit)
	p.release(in, sound)
	return err
}

// acquire takes an idle instance, or starts one while fewer than n
// live, or waits for one to be handed back.
func (p *Pool) acquire(ctx context.Context) (*instance, error) {
	// An idle instance first: the select below would as soon start a new
	// one while a slot is free.
	select {
	case in := <-p.idle:
		return in, nil
	default:
	}
	select {
	case in := <-p.idle:
		return in, nil
	case p.slots <- struct{}{}:
		in, err := p.start(ctx)
		if err != nil {
			<-p.slots
			return nil, err
		}
		return in, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// start instantiates the module; the caller holds a slot for it.
func (p *Pool) start(ctx context.Context) (*instance, error) {
	cfg := wazero.NewModuleConfig().WithName("").WithStdout(io.Discard).WithStderr(io.Discard)
	mod, err := module.rt.InstantiateModule(withMemory(context.WithoutCancel(ctx)), module.cm, cfg)
	if err != nil {
		return nil, fmt.Errorf("heifwasm: start a decoder: %w", err)
	}
	p.started.Add(1)
	return &instance{
		mod:    mod,
		malloc: mod.ExportedFunction("malloc"),
		free:   mod.ExportedFunction("free"),
		decode: mod.ExportedFunction("decode"),
	}, nil
}

// release hands in back: kept while sound and not grown too large, else
// closed, freeing its slot.
func (p *Pool) release(in *instance, sound bool) {
	if !sound || in.mod.Memory().Size() > p.memCap {
		p.close(in)
		return
	}
	in.lastUse = time.Now()
	p.idle <- in // never blocks: it holds a slot, and idle has one place a slot
}

func (p *Pool) close(in *instance) {
	in.mod.Close(context.Background())
	<-p.slots
}

// begin and end count the decodes in progress; once none is, the idle
// instances are closed idleTimeout later unless a decode comes first.
func (p *Pool) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy++
	if p.timer != nil {
		p.timer.Stop()
	}
}

func (p *Pool) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy--; p.busy > 0 {
		return
	}
	if p.timer == nil {
		p.timer = time.AfterFunc(p.idleTimeout, p.trim)
	} else {
		p.timer.Reset(p.idleTimeout)
	}
}

// trim closes the instances idle for idleTimeout.
func (p *Pool) trim() {
	var keep []*instance
	for {
		select {
		case in := <-p.idle:
			if time.Since(in.lastUse) >= p.idleTimeout {
				p.close(in)
			} else {
				keep = append(keep, in)
			}
			continue
		default:
		}
		break
	}
	for _, in := range keep {
		p.idle <- in
	}
}

// Live returns how many instances exist (for tests).
func (p *Pool) Live() int { return len(p.slots) }

// run decodes file in the instance and calls visit. sound is false when
// the instance may be left in a bad state (the decoder trapped, its memory
// is full), so that it is not used again.
func (in *instance) run(ctx context.Context, file []byte, visit func(*image.YCbCr) error) (sound bool, err error) {
	mem := in.mod.Memory()
	var allocated []uint32
	defer func() {
		if !sound {
			return // the instance is closed: its memory goes with it
		}
		for _, ptr := range allocated {
			if _, ferr := in.free.Call(ctx, uint64(ptr)); ferr != nil {
				sound = false
			}
		}
	}()
	alloc := func(n int) (uint32, error) {
		res, err := in.malloc.Call(ctx, uint64(n))
		if err != nil {
			return 0, fmt.Errorf("heifwasm: allocate %d bytes: %w", n, err)
		}
		if res[0] == 0 {
			return 0, fmt.Errorf("heifwasm: allocate %d bytes: the decoder's memory is full", n)
		}
		allocated = append(allocated, uint32(res[0]))
		return uint32(res[0]), nil
	}
	inPtr, err := alloc(len(file))
	if err != nil {
		return false, err
	}
	if !mem.Write(inPtr, file) {
		return false, errors.New("heifwasm: write the file into the decoder's memory")
	}
	vals, err := alloc(5 * 4)
	if err != nil {
		return false, err
	}
	// decode answers 0 when libheif refuses the file (it then frees what
	// it took): the instance stays sound.
	call := func(configOnly, out uint32) (bool, error) {
		res, err := in.decode.Call(ctx, uint64(inPtr), uint64(len(file)), uint64(configOnly),
			uint64(vals), uint64(vals+4), uint64(vals+8), uint64(vals+12), uint64(vals+16), uint64(out))
		if err != nil {
			return false, fmt.Errorf("heifwasm: the decoder failed: %w", err)
		}
		if res[0] == 0 {
			return true, ErrDecode
		}
		return true, nil
	}
	if ok, err := call(1, 0); err != nil {
		return ok, err
	}
	var v [4]uint32
	for i := range v {
		var ok bool
		if v[i], ok = mem.ReadUint32Le(vals + uint32(4*i)); !ok {
			return false, errors.New("heifwasm: read the picture's header from the decoder's memory")
		}
	}
	w, h, colorspace, chroma := int(v[0]), int(v[1]), v[2], v[3]
	if colorspace != colorspaceYCbCr {
		return true, fmt.Errorf("%w (colorspace %d)", ErrUnsupported, colorspace)
	}
	var ratio image.YCbCrSubsampleRatio
	cw, ch := w, h
	switch chroma {
	case chroma420:
		ratio, cw, ch = image.YCbCrSubsampleRatio420, (w+1)/2, (h+1)/2
	case chroma422:
		ratio, cw = image.YCbCrSubsampleRatio422, (w+1)/2
	case chroma444:
		ratio = image.YCbCrSubsampleRatio444
	default:
		return true, fmt.Errorf("%w (chroma %d)", ErrUnsupported, chroma)
	}
	ys, cs := align(w), align(cw)
	size := ys*h + 2*cs*ch
	if w <= 0 || h <= 0 || size > maxPicture {
		return true, fmt.Errorf("heifwasm: the decoder gave a %dx%d picture", w, h)
	}
	out, err := alloc(size)
	if err != nil {
		return false, err
	}
	if ok, err := call(0, out); err != nil {
		return ok, err
	}
	pix, ok := mem.Read(out, uint32(size))
	if !ok {
		return false, errors.New("heifwasm: read the picture from the decoder's memory")
	}
	i0, i1 := ys*h, ys*h+cs*ch
	img := &image.YCbCr{
		Y: pix[:i0:i0], Cb: pix[i0:i1:i1], Cr: pix[i1:size:size],
		YStride: ys, CStride: cs, SubsampleRatio: ratio, Rect: image.Rect(0, 0, w, h),
	}
	return true, visit(img)
}

func align(n int) int { return (n + rowAlign - 1) &^ (rowAlign - 1) }
