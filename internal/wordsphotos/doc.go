// Package wordsphotos makes the photos with words that the reader of
// words (issue 37) is measured on, and scores a reading against their
// true text. It is for the bench and the tests only (spark-bench words):
// nothing in the app or the engine imports it.
//
// Generate draws, from the Go fonts of golang.org/x/image and a fixed
// seed, the same images every time: printed letters (A4, 1,600 pixels
// wide, several paragraphs, a reference such as RD/7731/Q and an account
// number), product labels (short bold lines on a coloured background,
// slightly turned) and signs (large letters seen at an angle, in uneven
// light, with noise), each saved as a JPEG at a camera's quality as
// NAME.jpg beside NAME.txt, its true text; the first of each kind also as
// a lossless NAME.png. They are made at bench time, never committed.
//
// Compare scores a reading: the character error rate over normalized
// text (Normalize says exactly how) and the true words found.
package wordsphotos
