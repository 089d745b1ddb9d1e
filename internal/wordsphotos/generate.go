package wordsphotos

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Photo is one scene made by Generate: its name, its kind ("letter",
// "label" or "sign"), the images written of it (NAME.jpg, and NAME.png
// for the first of each kind) and its true text, as written in NAME.txt.
type Photo struct {
	Name  string
	Kind  string
	Files []string
	Text  string
}

// Kinds are the kinds of scene Generate makes, in its order.
var Kinds = []string{"letter", "label", "sign"}

// scene is one photo to make: its surface's words and how it is shot.
type scene struct {
	name, kind string
	// quality is the JPEG's, as a camera or a phone saves.
	quality int
	png     bool
	make    func() (*image.RGBA, []string, error)
}

var (
	ink   = color.RGBA{24, 24, 30, 255}
	paper = color.RGBA{250, 249, 244, 255}
)

// look is how a letter is photographed: turned deg degrees; keystone
// pixels narrower at the top than at the bottom (the camera tilted
// back); soft (a little out of focus); the sensor's noise; the light
// across the page.
type look struct {
	deg, keystone float64
	soft          bool
	noise         float64
	light         func(u, v float64) float64
}

// letter lays blocks out on an A4 page 1,600 pixels wide and photographs
// it lying on a desk, nearly square on, as l says.
func letter(blocks []block, l look, seed uint64) func() (*image.RGBA, []string, error) {
	return func() (*image.RGBA, []string, error) {
		const w, h = 1600, 2263
		page := fill(w, h, paper)
		lines, err := layout(page, blocks, 170, 150, w-2*170)
		if err != nil {
			return nil, nil, err
		}
		c := turned(w, h, w, h, l.deg, 0.95)
		c[0][0] += l.keystone
		c[1][0] -= l.keystone
		desk := color.RGBA{132, 96, 64, 255}
		img := photograph(page, shot{outW: w, outH: h, corners: c, seed: seed, noise: l.noise, soft: l.soft,
			around: func(x, y int) color.RGBA {
				return shade(desk, 0.9+0.08*math.Sin(float64(y)*0.045+3*math.Sin(float64(x)*0.004))+0.04*float64(hash(0, y/3, seed)%100)/100)
			},
			light: l.light,
		})
		return img, lines, nil
	}
}

// label lays short bold lines on a coloured label of w×h and photographs
// it on a grey shelf, turned deg degrees.
func label(w, h int, bg color.RGBA, blocks []block, deg float64, seed uint64) func() (*image.RGBA, []string, error) {
	return func() (*image.RGBA, []string, error) {
		// A band of white along the edges, as printed.
		surface := framed(w, h, bg, paper, 14)
		lines, err := layout(surface, blocks, 60, 50, w-120)
		if err != nil {
			return nil, nil, err
		}
		const outW, outH = 1400, 1050
		shelf := color.RGBA{118, 120, 126, 255}
		img := photograph(surface, shot{outW: outW, outH: outH, corners: turned(w, h, outW, outH, deg, 1.15), seed: seed, noise: 4,
			around: func(x, y int) color.RGBA {
				return shade(shelf, 0.85+0.2*float64(y)/outH)
			},
			light: func(u, v float64) float64 { return 0.92 + 0.1*u - 0.06*v },
		})
		return img, lines, nil
	}
}

// sign paints lines on a board of w×h and photographs it on a brick wall
// from the side: its corners where corners say, the light uneven (light
// says how) and the picture noisy and a little soft.
func sign(w, h int, board, border color.RGBA, blocks []block, corners [4][2]float64, light func(u, v float64) float64, seed uint64) func() (*image.RGBA, []string, error) {
	return func() (*image.RGBA, []string, error) {
		surface := framed(w, h, board, border, 28)
		lines, err := layout(surface, blocks, 80, 70, w-160)
		if err != nil {
			return nil, nil, err
		}
		const outW, outH = 1600, 1200
		brick, mortar := color.RGBA{148, 72, 52, 255}, color.RGBA{186, 180, 168, 255}
		img := photograph(surface, shot{outW: outW, outH: outH, corners: corners, seed: seed, noise: 8, soft: true,
			around: func(x, y int) color.RGBA {
				row := y / 56
				xx := x + (row%2)*64
				if y%56 < 7 || xx%128 < 7 {
					return mortar
				}
				return shade(brick, 0.78+0.3*float64(hash(xx/128, row, seed)%100)/100)
			},
			light: light,
		})
		return img, lines, nil
	}
}

func p(text, font string, px float64, before float64) block {
	return block{text: text, font: font, px: px, col: ink, before: before}
}

func scenes() []scene {
	navy := color.RGBA{20, 36, 90, 255}
	white := color.RGBA{255, 255, 255, 255}
	return []scene{
		{name: "letter-1", kind: "letter", quality: 85, png: true, make: letter([]block{
			p("Severn Water", "bold", 46, 0),
			p("Customer Services, PO Box 7731, Gloucester GL1 2XY", "regular", 28, 0),
			p("Mr D. Hartley", "regular", 30, 2),
			p("14 Orchard Lane", "regular", 30, 0),
			p("Tewkesbury GL20 5QT", "regular", 30, 0),
			p("12 November 2026", "regular", 30, 1),
			p("Your reference RD/7731/Q", "bold", 30, 1),
			p("Account number 4417 0923 8815", "bold", 30, 0),
			p("Dear Mr Hartley,", "regular", 30, 1),
			p("Thank you for your payment of £41.20, which we received on 3 November. Your account is now up to date, and your next bill is due in March 2027.", "regular", 30, 1),
			p("From 1 April your standing charge will rise by 2.4 per cent. You do not need to do anything: your direct debit will change on its own, and we will write to you before the first new payment is taken.", "regular", 30, 1),
			p("If you have a question about this letter, please call us on 0345 600 7731 between 8am and 6pm, Monday to Friday, and quote the reference above.", "regular", 30, 1),
			p("Yours sincerely,", "regular", 30, 1),
			p("Helen Price", "regular", 30, 2),
			p("Billing Team", "regular", 30, 0),
		}, look{deg: 0.6, noise: 3, light: func(u, v float64) float64 { return 1.02 - 0.12*u*v - 0.05*v }}, 101)},
		{name: "letter-2", kind: "letter", quality: 82, make: letter([]block{
			p("Malvern Hills District Council", "bold", 40, 0),
			p("Council Tax, Avenue Road, Malvern WR14 3AF", "regular", 26, 0),
			p("Mrs J. Hartley", "regular", 26, 2),
			p("14 Orchard Lane, Tewkesbury GL20 5QT", "regular", 26, 0),
			p("Council Tax bill 2027/28", "bold", 34, 1),
			p("Property reference 00231-887-4 Band D", "regular", 26, 1),
			p("Account number 6120 4458", "regular", 26, 0),
			p("Your Council Tax for the year from 1 April 2027 to 31 March 2028 is £2,214.36. It will be collected in ten monthly payments of £221.43, the first on 15 April 2027, by the direct debit you have set up with us.", "regular", 26, 1),
			p("If you live alone you may be able to claim a single person discount of 25 per cent. Tell us within 21 days of any change in who lives at the property, or you may have to pay a penalty of £70.", "regular", 26, 1),
			p("You can pay, see your bills and tell us about a change online at any time. Please have your account number ready when you contact us.", "regular", 26, 1),
			p("Revenues and Benefits", "medium", 26, 2),
		}, look{deg: -0.4, keystone: 70, soft: true, noise: 5,
			// A window to the left: the page darkens to the right.
			light: func(u, v float64) float64 { return 1.04 - 0.3*u*u - 0.08*v }}, 202)},
		{name: "letter-3", kind: "letter", quality: 80, make: letter([]block{
			p("Abbey Road Surgery", "bold", 48, 0),
			p("Dr S. Okafor and partners", "medium", 32, 0),
			p("Appointment letter", "bold", 36, 2),
			p("NHS number 943 476 5919", "regular", 34, 1),
			p("Date: Tuesday 19 January 2027", "regular", 34, 1),
			p("Time: 10:40", "regular", 34, 0),
			p("Clinic: Diabetes review, room 4", "regular", 34, 0),
			p("Please bring this letter and a list of the medicines you take. Arrive ten minutes early so that the nurse can check your blood pressure and weight.", "regular", 34, 1),
			p("If you cannot come, call 01684 293 100 at least 48 hours before, so that someone else may have the appointment.", "regular", 34, 1),
		}, look{deg: 1.1, keystone: 25, noise: 4,
			// The phone's shadow, soft-edged, over the paragraphs.
			light: func(u, v float64) float64 {
				d := math.Hypot((u-0.6)*1.3, v-0.33)
				return 1.0 - 0.38*math.Exp(-d*d*9)
			}}, 303)},
		{name: "label-1", kind: "label", quality: 84, png: true, make: label(1000, 700, color.RGBA{250, 214, 70, 255}, []block{
			{text: "ORGANIC OAT DRINK", font: "bold", px: 74, col: color.RGBA{18, 70, 36, 255}, center: true},
			{text: "1 LITRE", font: "bold", px: 56, col: color.RGBA{18, 70, 36, 255}, center: true, before: 0.3},
			{text: "Best before 14 MAR 2027", font: "bold", px: 44, col: ink, before: 0.6},
			{text: "Batch L2291B", font: "bold", px: 44, col: ink},
			{text: "Keep refrigerated once opened and use within 5 days", font: "bold", px: 36, col: ink, before: 0.4},
		}, -3, 404)},
		{name: "label-2", kind: "label", quality: 80, make: label(1000, 720, color.RGBA{196, 224, 246, 255}, []block{
			{text: "PARACETAMOL 500 mg", font: "bold", px: 70, col: navy, center: true},
			{text: "16 TABLETS", font: "bold", px: 50, col: navy, center: true, before: 0.2},
			{text: "Take 2 tablets every 4 to 6 hours", font: "bold", px: 38, col: ink, before: 0.6},
			{text: "Do not take more than 8 in 24 hours", font: "bold", px: 38, col: ink},
			{text: "PL 12345/0678", font: "bold", px: 38, col: ink, before: 0.4},
			{text: "EXP 09/2028 LOT 4B77X", font: "bold", px: 38, col: ink},
		}, 2.5, 505)},
		{name: "label-3", kind: "label", quality: 78, make: label(960, 640, color.RGBA{232, 150, 52, 255}, []block{
			{text: "Wildflower Honey", font: "bold", px: 80, col: color.RGBA{60, 30, 10, 255}, center: true},
			{text: "340g", font: "bold", px: 60, col: color.RGBA{60, 30, 10, 255}, center: true, before: 0.2},
			{text: "Mill Farm Apiary, Ledbury HR8 2JF", font: "bold", px: 38, col: color.RGBA{40, 20, 8, 255}, center: true, before: 0.5},
			{text: "Best before end 2028", font: "bold", px: 38, col: color.RGBA{40, 20, 8, 255}, center: true},
		}, 4, 606)},
		{name: "sign-1", kind: "sign", quality: 80, png: true, make: sign(1400, 820, white, color.RGBA{200, 30, 36, 255}, []block{
			{text: "NO PARKING", font: "bold", px: 170, col: color.RGBA{200, 30, 36, 255}, center: true},
			{text: "EXCEPT FOR LOADING", font: "bold", px: 90, col: ink, center: true, before: 0.4},
			{text: "MON - SAT 8AM - 6PM", font: "bold", px: 90, col: ink, center: true, before: 0.2},
		}, [4][2]float64{{210, 190}, {1390, 300}, {1380, 930}, {220, 1010}},
			func(u, v float64) float64 {
				// The light falls off to the right, and a lamp post's
				// shadow crosses the sign.
				l := 1.05 - 0.45*math.Max(0, u-0.55) - 0.1*v
				if d := math.Abs(u - (0.42 + 0.12*v)); d < 0.025 {
					l *= 0.55
				}
				return l
			}, 707)},
		{name: "sign-2", kind: "sign", quality: 78, make: sign(1500, 760, navy, white, []block{
			{text: "PLATFORM 2", font: "bold", px: 150, col: white, center: true},
			{text: "Trains to Bristol Temple Meads", font: "bold", px: 76, col: white, center: true, before: 0.4},
			{text: "and Cardiff Central", font: "bold", px: 76, col: white, center: true},
		}, [4][2]float64{{120, 260}, {1500, 170}, {1530, 900}, {160, 880}},
			func(u, v float64) float64 {
				d := math.Hypot(u-0.3, v-0.35)
				return 0.55 + 0.6*math.Exp(-d*d*6)
			}, 808)},
		{name: "sign-3", kind: "sign", quality: 76, make: sign(1300, 900, color.RGBA{248, 206, 40, 255}, ink, []block{
			{text: "CAR PARK CLOSES AT 10PM", font: "bold", px: 86, col: ink, center: true},
			{text: "Vehicles left after 10pm will be locked in", font: "bold", px: 64, col: ink, center: true, before: 0.4},
			{text: "Release charge £25.00", font: "bold", px: 64, col: ink, center: true, before: 0.4},
		}, [4][2]float64{{300, 150}, {1310, 230}, {1260, 1080}, {250, 950}},
			func(u, v float64) float64 { return 0.6 + 0.5*u*(1-0.4*v) }, 909)},
	}
}

// Generate writes every scene into dir (made if missing): NAME.jpg,
// NAME.txt and, for the first of each kind, NAME.png. The same bytes
// every time, on any machine with the same Go.
func Generate(dir string) ([]Photo, error) {
	return generate(dir, nil)
}

// generate is Generate of the scenes only names (nil: all).
func generate(dir string, only []string) ([]Photo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var photos []Photo
	for _, s := range scenes() {
		if only != nil && !slices.Contains(only, s.name) {
			continue
		}
		img, lines, err := s.make()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		ph := Photo{Name: s.name, Kind: s.kind, Text: strings.Join(lines, "\n") + "\n"}
		var jb bytes.Buffer
		if err := jpeg.Encode(&jb, img, &jpeg.Options{Quality: s.quality}); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		files := map[string][]byte{s.name + ".jpg": jb.Bytes(), s.name + ".txt": []byte(ph.Text)}
		if s.png {
			var pb bytes.Buffer
			if err := png.Encode(&pb, img); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			files[s.name+".png"] = pb.Bytes()
		}
		for _, ext := range []string{".jpg", ".png", ".txt"} {
			b, ok := files[s.name+ext]
			if !ok {
				continue
			}
			f := filepath.Join(dir, s.name+ext)
			if err := os.WriteFile(f, b, 0o644); err != nil {
				return nil, err
			}
			if ext != ".txt" {
				ph.Files = append(ph.Files, f)
			}
		}
		photos = append(photos, ph)
	}
	return photos, nil
}
