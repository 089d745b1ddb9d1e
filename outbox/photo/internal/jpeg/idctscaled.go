package jpeg

// Reduced inverse DCTs: an 8x8 block of dequantized coefficients straight
// to 4x4, 2x2 or 1x1 pixels, each the mean of the 2x2, 4x4 or 8x8 pixels
// the full inverse DCT would give (before rounding and clipping). This is
// the transform libjpeg's jidctred.c computes for scale_denom 2, 4 and 8;
// the code here is derived from the definition, as follows.
//
// The 1-D inverse DCT of the coefficients F(0..7) is
//
//	f(x) = 1/2 Σ_u C(u) F(u) cos((2x+1)uπ/16),  C(0) = 1/√2, C(u>0) = 1.
//
// The mean of pixels 2n and 2n+1 puts the cosines' sum into a product:
//
//	(f(2n) + f(2n+1))/2 = 1/2 Σ_u C(u) F(u) cos(uπ/16) cos((2n+1)uπ/8)
//
// so it is a 4-point inverse DCT of the u = 0..7 terms. Since
// cos((2n+1)(8-u)π/8) = -cos((2n+1)uπ/8) and cos((8-u)π/16) = sin(uπ/16),
// the terms fold in pairs: G(u) = cos(uπ/16) F(u) - sin(uπ/16) F(8-u) for
// u = 1, 2, 3, G(0) = F(0), and F(4) drops out. Writing c(k) = cos(kπ/16)
// and s(k) = sin(kπ/16), the four means g(0..3) are 1/2 of
//
//	ea ± oa for n = 0, 3, and eb ± ob for n = 1, 2, with
//	ea, eb = F0/√2 ± (c2 F2 - s2 F6)/√2
//	oa = c2 (c1 F1 - s1 F7) + s2 (c3 F3 - s3 F5)
//	ob = s2 (c1 F1 - s1 F7) - c2 (c3 F3 - s3 F5)
//
// The mean of pixels 4n to 4n+3 works the same way, with the factor
// (c(u) + c(3u))/2 and the cosines cos((2n+1)uπ/4): the even terms but
// F(0) drop out, and the two means are 1/2 of e ± o with
//
//	e = F0/√2
//	o = (F1 (c1+c3) - F3 (c3+c9) - F5 (c5+c15) + F7 (c7+c21)) / (2√2)
//
// and the mean of all eight is F(0)/(2√2). A 2-D block is the 1-D transform
// along its rows, then along its columns: rows whose vertical frequency
// drops out are skipped, and the 2-D DC alone gives F(0,0)/8.
//
// The arithmetic is fixed point, the constants with 13 fractional bits;
// the row pass keeps 2 fractional bits and the column pass rounds the
// result, with the two factors of 1/2, to an integer.

const (
	fixBits = 13

	fixR2 = 5793 // 1/√2

	// 4x4: see above.
	fixE2  = 5352 // c2/√2
	fixE6  = 2217 // s2/√2
	fixA11 = 7423 // c2 c1
	fixA17 = 1477 // c2 s1
	fixA13 = 2607 // s2 c3
	fixA15 = 1742 // s2 s3
	fixB11 = 3075 // s2 c1
	fixB17 = 612  // s2 s1
	fixB13 = 6293 // c2 c3
	fixB15 = 4205 // c2 s3

	// 2x2: the odd terms' factors, (c(u)+c(3u))/(2√2) up to sign.
	fixD1 = 5249 // (c1+c3)/(2√2)
	fixD3 = 1843 // (c3+c9)/(2√2)
	fixD5 = 1232 // -(c5+c15)/(2√2)
	fixD7 = 1044 // -(c7+c21)/(2√2)

	// pass1Shift takes a row-pass sum to 2 fractional bits; pass2Shift
	// takes a column-pass sum (2+13 fractional bits) to an integer and
	// divides by 4 (the two factors of 1/2).
	pass1Shift = fixBits - 2
	pass2Shift = fixBits + 2 + 2
)

// dcOnly is every pixel of a block whose only non-zero coefficient is the
// dequantized DC term dc, before the level shift: idct's result for such
// a block, to the bit (((dc<<17)+(1<<19))>>20, in int32 as idct computes
// it), which is also the block's mean at any scale.
func dcOnly(dc int32) int32 {
	return (dc<<17 + 1<<19) >> 20
}

// idct4 reduces the dequantized block b to the 4x4 means of its 2x2
// pixels and stores them, level shifted and clipped, to dst.
func idct4(b *block, dst []byte, stride int) {
	var ws [8 * 4]int32
	// Rows: each row of coefficients to 4 values, except row 4, which
	// the column pass does not use.
	for v := range 8 {
		if v == 4 {
			continue
		}
		f := b[8*v : 8*v+8 : 8*v+8]
		w := ws[4*v : 4*v+4 : 4*v+4]
		if f[1]|f[2]|f[3]|f[5]|f[6]|f[7] == 0 {
			x := (f[0]*fixR2 + 1<<(pass1Shift-1)) >> pass1Shift
			w[0], w[1], w[2], w[3] = x, x, x, x
			continue
		}
		t0 := f[0] * fixR2
		t2 := f[2]*fixE2 - f[6]*fixE6
		ea, eb := t0+t2, t0-t2
		oa := f[1]*fixA11 - f[7]*fixA17 + f[3]*fixA13 - f[5]*fixA15
		ob := f[1]*fixB11 - f[7]*fixB17 - f[3]*fixB13 + f[5]*fixB15
		const r = 1 << (pass1Shift - 1)
		w[0] = (ea + oa + r) >> pass1Shift
		w[3] = (ea - oa + r) >> pass1Shift
		w[1] = (eb + ob + r) >> pass1Shift
		w[2] = (eb - ob + r) >> pass1Shift
	}
	// Columns: each column of 8 values (vertical frequencies) to 4
	// pixels.
	const r = 1 << (pass2Shift - 1)
	for n := range 4 {
		f0, f1, f2, f3 := ws[n], ws[4+n], ws[8+n], ws[12+n]
		f5, f6, f7 := ws[20+n], ws[24+n], ws[28+n]
		var y0, y1, y2, y3 int32
		if f1|f2|f3|f5|f6|f7 == 0 {
			x := (f0*fixR2 + r) >> pass2Shift
			y0, y1, y2, y3 = x, x, x, x
		} else {
			t0 := f0 * fixR2
			t2 := f2*fixE2 - f6*fixE6
			ea, eb := t0+t2, t0-t2
			oa := f1*fixA11 - f7*fixA17 + f3*fixA13 - f5*fixA15
			ob := f1*fixB11 - f7*fixB17 - f3*fixB13 + f5*fixB15
			y0 = (ea + oa + r) >> pass2Shift
			y3 = (ea - oa + r) >> pass2Shift
			y1 = (eb + ob + r) >> pass2Shift
			y2 = (eb - ob + r) >> pass2Shift
		}
		dst[n] = level(y0)
		dst[stride+n] = level(y1)
		dst[2*stride+n] = level(y2)
		dst[3*stride+n] = level(y3)
	}
}

// idct2 reduces the dequantized block b to the 2x2 means of its 4x4
// pixels and stores them, level shifted and clipped, to dst.
func idct2(b *block, dst []byte, stride int) {
	// Rows 0, 1, 3, 5 and 7: the column pass uses no other.
	var ws [8 * 2]int32
	for _, v := range [...]int{0, 1, 3, 5, 7} {
		f := b[8*v : 8*v+8 : 8*v+8]
		e := f[0] * fixR2
		o := f[1]*fixD1 - f[3]*fixD3 + f[5]*fixD5 - f[7]*fixD7
		const r = 1 << (pass1Shift - 1)
		ws[2*v] = (e + o + r) >> pass1Shift
		ws[2*v+1] = (e - o + r) >> pass1Shift
	}
	const r = 1 << (pass2Shift - 1)
	for n := range 2 {
		e := ws[n] * fixR2
		o := ws[2+n]*fixD1 - ws[6+n]*fixD3 + ws[10+n]*fixD5 - ws[14+n]*fixD7
		dst[n] = level((e + o + r) >> pass2Shift)
		dst[stride+n] = level((e - o + r) >> pass2Shift)
	}
}
