// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpeg

import (
	"io"
)

// maxCodeLength is the maximum (inclusive) number of bits in a Huffman code.
const maxCodeLength = 16

// maxNCodes is the maximum (inclusive) number of codes in a Huffman tree.
const maxNCodes = 256

// lutSize is the log-2 size of the Huffman decoder's look-up table.
const lutSize = 8

// fastBits is the log-2 size of the fastAC table.
const fastBits = 9

// huffman is a Huffman decoder, specified in section C.
type huffman struct {
	// length is the number of codes in the tree.
	nCodes int32
	// lut is the look-up table for the next lutSize bits in the bit-stream.
	// The high 8 bits of the uint16 are the encoded value. The low 8 bits
	// are 1 plus the code length, or 0 if the value is too large to fit in
	// lutSize bits.
	lut [1 << lutSize]uint16
	// fastAC, for an AC table, decodes the next fastBits bits at once when
	// they hold both a code for a non-zero coefficient and the
	// coefficient's extra bits: the coefficient is in the high 16 bits,
	// the zero run before it in bits 8 to 15 and the number of bits used
	// in the low 8 bits. It is 0 otherwise, and all 0 for a table whose
	// codes do not fit their lengths (which image/jpeg accepts, and
	// decodes through lut and the codes' bounds, as this decoder then
	// does).
	fastAC [1 << fastBits]int32
	// vals are the decoded values, sorted by their encoding.
	vals [maxNCodes]uint8
	// minCodes[i] is the minimum code of length i, or -1 if there are no
	// codes of that length.
	minCodes [maxCodeLength]int32
	// maxCodes[i] is the maximum code of length i, or -1 if there are no
	// codes of that length.
	maxCodes [maxCodeLength]int32
	// valsIndices[i] is the index into vals of minCodes[i].
	valsIndices [maxCodeLength]int32
}

// errShortHuffmanData means that an unexpected EOF occurred while decoding
// Huffman data.
var errShortHuffmanData = FormatError("short Huffman data")

// takeBytes moves bytes of Huffman-coded data from the byte buffer into the
// bit accumulator until it holds more than 56 bits, or until the next bytes
// are a marker or there are none, which d.bits.err then records.
func (d *decoder) takeBytes() {
	a, n := d.bits.a, d.bits.n
	for n <= 56 && d.bits.err == nil {
		i := d.bytes.i
		// The fast path: two bytes are buffered, enough to tell a
		// byte-stuffed 0xff from a marker.
		for n <= 56 && i+1 < d.bytes.j {
			c := d.bytes.buf[i]
			if c == 0xff {
				if d.bytes.buf[i+1] != 0x00 {
					d.bytes.i = i
					d.bits.a, d.bits.n, d.bits.err = a, n, errMissingFF00
					return
				}
				i++
			}
			i++
			a = a<<8 | uint64(c)
			n += 8
		}
		d.bytes.i = i
		if n <= 56 {
			d.bits.a, d.bits.n = a, n
			d.takeByteSlow()
			a, n = d.bits.a, d.bits.n
		}
	}
	d.bits.a, d.bits.n = a, n
}

// takeByteSlow moves one byte into the accumulator, reading more input as
// needed, or records in d.bits.err why it cannot.
func (d *decoder) takeByteSlow() {
	c, err := d.readByte()
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			err = errShortHuffmanData
		}
		d.bits.err = err
		return
	}
	if c == 0xff {
		c2, err := d.readByte()
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				err = errShortHuffmanData
			}
			d.bits.err = err
			return
		}
		if c2 != 0x00 {
			// A marker: put it back for the marker loop. The fill that
			// may have happened between the two bytes kept the last two.
			d.bytes.i -= 2
			d.bits.err = errMissingFF00
			return
		}
	}
	d.bits.a = d.bits.a<<8 | uint64(c)
	d.bits.n += 8
}

// ensureNBits makes d.bits.n at least n, or returns why it cannot.
func (d *decoder) ensureNBits(n int32) error {
	d.takeBytes()
	if d.bits.n < n {
		return d.bits.err
	}
	return nil
}

// receiveExtend is the composition of RECEIVE and EXTEND, specified in section
// F.2.2.1.
func (d *decoder) receiveExtend(t uint8) (int32, error) {
	if d.bits.n < int32(t) {
		if err := d.ensureNBits(int32(t)); err != nil {
			return 0, err
		}
	}
	d.bits.n -= int32(t)
	s := int32(1) << t
	x := int32(d.bits.a>>uint8(d.bits.n)) & (s - 1)
	if x < s>>1 {
		x += ((-1) << t) + 1
	}
	return x, nil
}

// processDHT processes a Define Huffman Table marker, and initializes a huffman
// struct from its contents. Specified in section B.2.4.2.
func (d *decoder) processDHT(n int) error {
	for n > 0 {
		if n < 17 {
			return FormatError("DHT has wrong length")
		}
		if err := d.readFull(d.tmp[:17]); err != nil {
			return err
		}
		tc := d.tmp[0] >> 4
		if tc > maxTc {
			return FormatError("bad Tc value")
		}
		th := d.tmp[0] & 0x0f
		// The baseline th <= 1 restriction is specified in table B.5.
		if th > maxTh || (d.baseline && th > 1) {
			return FormatError("bad Th value")
		}
		h := &d.huff[tc][th]

		// Read nCodes and h.vals (and derive h.nCodes).
		// nCodes[i] is the number of codes with code length i.
		// h.nCodes is the total number of codes.
		h.nCodes = 0
		var nCodes [maxCodeLength]int32
		for i := range nCodes {
			nCodes[i] = int32(d.tmp[i+1])
			h.nCodes += nCodes[i]
		}
		if h.nCodes == 0 {
			return FormatError("Huffman table has zero length")
		}
		if h.nCodes > maxNCodes {
			return FormatError("Huffman table has excessive length")
		}
		n -= int(h.nCodes) + 17
		if n < 0 {
			return FormatError("DHT has wrong length")
		}
		if err := d.readFull(h.vals[:h.nCodes]); err != nil {
			return err
		}

		// Derive the look-up table.
		clear(h.lut[:])
		var x, code uint32
		for i := uint32(0); i < lutSize; i++ {
			code <<= 1
			for j := int32(0); j < nCodes[i]; j++ {
				// The codeLength is 1+i, so shift code by 8-(1+i) to
				// calculate the high bits for every 8-bit sequence
				// whose codeLength's high bits matches code.
				// The high 8 bits of lutValue are the encoded value.
				// The low 8 bits are 1 plus the codeLength.
				base := uint8(code << (7 - i))
				lutValue := uint16(h.vals[x])<<8 | uint16(2+i)
				for k := uint8(0); k < 1<<(7-i); k++ {
					h.lut[base|k] = lutValue
				}
				code++
				x++
			}
		}
		if tc == acTable {
			h.deriveFastAC(nCodes)
		}

		// Derive minCodes, maxCodes, and valsIndices.
		var c, index int32
		for i, n := range nCodes {
			if n == 0 {
				h.minCodes[i] = -1
				h.maxCodes[i] = -1
				h.valsIndices[i] = -1
			} else {
				h.minCodes[i] = c
				h.maxCodes[i] = c + n - 1
				h.valsIndices[i] = index
				c += n
				index += n
			}
			c <<= 1
		}
	}
	return nil
}

// deriveFastAC fills h.fastAC from the codes' lengths and h.vals, if the
// codes fit their lengths.
func (h *huffman) deriveFastAC(nCodes [maxCodeLength]int32) {
	clear(h.fastAC[:])
	var code uint32
	for i := range nCodes {
		code += uint32(nCodes[i])
		if code > 1<<(i+1) {
			return // more codes than their length can tell apart
		}
		code <<= 1
	}
	var x int32
	code = 0
	for i := uint32(0); i < fastBits; i++ {
		code <<= 1
		for j := int32(0); j < nCodes[i]; j++ {
			v := h.vals[x]
			// A code of length 1+i for a non-zero coefficient (whose size
			// is v's low four bits) whose extra bits fit in the rest of
			// the fastBits bits.
			if size := uint32(v & 0x0f); size != 0 && 1+i+size <= fastBits {
				base := code << (fastBits - 1 - i)
				for k := uint32(0); k < 1<<(fastBits-1-i); k++ {
					extra := int32(k >> (fastBits - 1 - i - size))
					if extra < 1<<(size-1) {
						extra += (-1 << size) + 1
					}
					h.fastAC[base|k] = extra<<16 | int32(v>>4)<<8 | int32(1+i+size)
				}
			}
			code++
			x++
		}
	}
}

// decodeHuffman returns the next Huffman-coded value from the bit-stream,
// decoded according to h.
func (d *decoder) decodeHuffman(h *huffman) (uint8, error) {
	if h.nCodes == 0 {
		return 0, FormatError("uninitialized Huffman table")
	}

	if d.bits.n < lutSize {
		d.takeBytes()
	}
	if d.bits.n >= lutSize {
		if v := h.lut[(d.bits.a>>uint32(d.bits.n-lutSize))&(1<<lutSize-1)]; v != 0 {
			n := (v & 0xff) - 1
			d.bits.n -= int32(n)
			return uint8(v >> 8), nil
		}
	}

	// There are fewer than lutSize bits left in this segment, or the code
	// is longer than that: read the code bit by bit.
	for i, code := 0, int32(0); i < maxCodeLength; i++ {
		if d.bits.n == 0 {
			if err := d.ensureNBits(1); err != nil {
				return 0, err
			}
		}
		d.bits.n--
		code |= int32(d.bits.a>>uint32(d.bits.n)) & 1
		if code <= h.maxCodes[i] {
			return h.vals[h.valsIndices[i]+code-h.minCodes[i]], nil
		}
		code <<= 1
	}
	return 0, FormatError("bad Huffman code")
}

func (d *decoder) decodeBit() (bool, error) {
	if d.bits.n == 0 {
		if err := d.ensureNBits(1); err != nil {
			return false, err
		}
	}
	d.bits.n--
	return (d.bits.a>>uint32(d.bits.n))&1 != 0, nil
}

func (d *decoder) decodeBits(n int32) (uint32, error) {
	if d.bits.n < n {
		if err := d.ensureNBits(n); err != nil {
			return 0, err
		}
	}
	d.bits.n -= n
	ret := uint32(d.bits.a >> uint32(d.bits.n))
	ret &= (1 << uint32(n)) - 1
	return ret, nil
}
