package photo

// orientMatrix is, for each EXIF orientation, the 2x2 matrix that takes a
// point of the stored picture to where it is shown, in coordinates centred
// on the picture with x to the right and y down. Index 0 is unused.
var orientMatrix = [9][4]int{
	{},
	{1, 0, 0, 1},   // 1: as stored
	{-1, 0, 0, 1},  // 2: mirrored left to right
	{-1, 0, 0, -1}, // 3: turned 180 degrees
	{1, 0, 0, -1},  // 4: mirrored top to bottom
	{0, 1, 1, 0},   // 5: transposed
	{0, -1, 1, 0},  // 6: turned 90 degrees clockwise
	{0, -1, -1, 0}, // 7: transversed
	{0, 1, -1, 0},  // 8: turned 90 degrees anticlockwise
}

// composeOrientation returns the orientation that applies first and then
// then.
func composeOrientation(first, then int) int {
	a, b := orientMatrix[then], orientMatrix[first]
	m := [4]int{
		a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3],
		a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3],
	}
	for o := 1; o <= 8; o++ {
		if orientMatrix[o] == m {
			return o
		}
	}
	return 1 // unreachable: the eight form a group
}

// swapsAxes reports whether orientation o turns the picture a quarter, so
// that its shown width is its stored height.
func swapsAxes(o int) bool { return o >= 5 && o <= 8 }

// orientPlane returns p as shown under orientation o. It works on the small
// planes after the resize, where a copy costs little.
func orientPlane(p plane, o int) plane {
	if o <= 1 || o > 8 {
		return p
	}
	w, h := p.w, p.h
	dw, dh := w, h
	if swapsAxes(o) {
		dw, dh = h, w
	}
	d := newPlane(dw, dh)
	// Each case walks the source in order and steps through the
	// destination by a fixed stride.
	var start, dx, dy int // destination index of source (0,0), step per x, step per y
	switch o {
	case 2:
		start, dx, dy = w-1, -1, d.stride
	case 3:
		start, dx, dy = (h-1)*d.stride+w-1, -1, -d.stride
	case 4:
		start, dx, dy = (h-1)*d.stride, 1, -d.stride
	case 5:
		start, dx, dy = 0, d.stride, 1
	case 6:
		start, dx, dy = h-1, d.stride, -1
	case 7:
		start, dx, dy = (w-1)*d.stride+h-1, -d.stride, -1
	case 8:
		start, dx, dy = (w-1)*d.stride, -d.stride, 1
	}
	for y := 0; y < h; y++ {
		row := p.pix[y*p.stride : y*p.stride+w]
		i := start + y*dy
		for _, v := range row {
			d.pix[i] = v
			i += dx
		}
	}
	return d
}
