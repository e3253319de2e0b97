package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// colorFont reads colour emoji bitmaps from an OpenType font's CBDT/CBLC tables (Noto Color
// Emoji): libass and drawtext in Debian's ffmpeg draw no colour bitmap glyphs, so the PNG
// of a glyph is taken from the font and overlaid.
type colorFont struct {
	data   []byte
	tables map[string][]byte
	cmap   []cmapGroup
}

type cmapGroup struct{ first, last, glyph uint32 }

var errNoGlyph = errors.New("no glyph")

func openColorFont(path string) (*colorFont, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &colorFont{data: data, tables: map[string][]byte{}}
	if len(data) < 12 {
		return nil, errors.New("emoji font: too short")
	}
	n := int(binary.BigEndian.Uint16(data[4:]))
	for i := range n {
		rec := 12 + 16*i
		if rec+16 > len(data) {
			return nil, errors.New("emoji font: table directory cut short")
		}
		off, size := binary.BigEndian.Uint32(data[rec+8:]), binary.BigEndian.Uint32(data[rec+12:])
		if uint64(off)+uint64(size) > uint64(len(data)) {
			return nil, fmt.Errorf("emoji font: table %q out of the file", data[rec:rec+4])
		}
		f.tables[string(data[rec:rec+4])] = data[off : off+size]
	}
	for _, t := range []string{"cmap", "CBLC", "CBDT"} {
		if f.tables[t] == nil {
			return nil, fmt.Errorf("emoji font: no %s table (not a CBDT colour font)", t)
		}
	}
	if err := f.readCmap(); err != nil {
		return nil, err
	}
	return f, nil
}

// readCmap takes the first format-12 (full Unicode) subtable.
func (f *colorFont) readCmap() error {
	t := f.tables["cmap"]
	if len(t) < 4 {
		return errors.New("emoji font: cmap too short")
	}
	for i := range int(u16(t, 2)) {
		off := int(u32(t, 4+8*i+4))
		if off+16 > len(t) || u16(t, off) != 12 {
			continue
		}
		n := int(u32(t, off+12))
		if off+16+12*n > len(t) {
			return errors.New("emoji font: cmap format 12 cut short")
		}
		for g := range n {
			p := off + 16 + 12*g
			f.cmap = append(f.cmap, cmapGroup{u32(t, p), u32(t, p+4), u32(t, p+8)})
		}
		return nil
	}
	return errors.New("emoji font: no format 12 cmap")
}

func (f *colorFont) glyph(r rune) (uint32, bool) {
	for _, g := range f.cmap {
		if uint32(r) >= g.first && uint32(r) <= g.last {
			return g.glyph + uint32(r) - g.first, true
		}
	}
	return 0, false
}

// PNG returns the PNG image of r's glyph from the font's largest strike.
func (f *colorFont) PNG(r rune) ([]byte, error) {
	gid, ok := f.glyph(r)
	if !ok || gid > 0xFFFF {
		return nil, fmt.Errorf("emoji font: %U: %w", r, errNoGlyph)
	}
	cblc, cbdt := f.tables["CBLC"], f.tables["CBDT"]
	if len(cblc) < 8 {
		return nil, errors.New("emoji font: CBLC too short")
	}
	best, bestPPEM := -1, -1
	for i := range int(u32(cblc, 4)) {
		rec := 8 + 48*i
		if rec+48 > len(cblc) {
			break
		}
		if int(u16(cblc, rec+40)) <= int(gid) && int(gid) <= int(u16(cblc, rec+42)) && int(cblc[rec+44]) > bestPPEM {
			best, bestPPEM = rec, int(cblc[rec+44])
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("emoji font: %U: %w in any strike", r, errNoGlyph)
	}
	arr, count := int(u32(cblc, best)), int(u32(cblc, best+8))
	for i := range count {
		p := arr + 8*i
		if p+8 > len(cblc) {
			break
		}
		first, last := uint32(u16(cblc, p)), uint32(u16(cblc, p+2))
		if gid < first || gid > last {
			continue
		}
		sub := arr + int(u32(cblc, p+4))
		if sub+8 > len(cblc) {
			break
		}
		start, end, format, err := glyphRange(cblc, sub, gid, first)
		if err != nil {
			return nil, err
		}
		if end > len(cbdt) || start >= end {
			return nil, errors.New("emoji font: glyph data out of CBDT")
		}
		return pngOf(cbdt[start:end], format)
	}
	return nil, fmt.Errorf("emoji font: %U: %w in the strike's index", r, errNoGlyph)
}

// glyphRange is where in CBDT glyph gid's data lies, by the index subtable at sub (formats 1,
// 2, 3, 4 and 5), and its image format.
func glyphRange(cblc []byte, sub int, gid, first uint32) (start, end int, imageFormat uint16, err error) {
	indexFormat, imageFormat := u16(cblc, sub), u16(cblc, sub+2)
	base := int(u32(cblc, sub+4))
	k := int(gid - first)
	need := func(n int) error {
		if n > len(cblc) {
			return errors.New("emoji font: CBLC index cut short")
		}
		return nil
	}
	switch indexFormat {
	case 1:
		if err := need(sub + 8 + 4*(k+2)); err != nil {
			return 0, 0, 0, err
		}
		return base + int(u32(cblc, sub+8+4*k)), base + int(u32(cblc, sub+8+4*(k+1))), imageFormat, nil
	case 3:
		if err := need(sub + 8 + 2*(k+2)); err != nil {
			return 0, 0, 0, err
		}
		return base + int(u16(cblc, sub+8+2*k)), base + int(u16(cblc, sub+8+2*(k+1))), imageFormat, nil
	case 2:
		size := int(u32(cblc, sub+8))
		return base + size*k, base + size*(k+1), imageFormat, nil
	case 4:
		n := int(u32(cblc, sub+8))
		if err := need(sub + 12 + 4*(n+1)); err != nil {
			return 0, 0, 0, err
		}
		for i := range n {
			p := sub + 12 + 4*i
			if uint32(u16(cblc, p)) == gid {
				return base + int(u16(cblc, p+2)), base + int(u16(cblc, p+6)), imageFormat, nil
			}
		}
	case 5:
		size, n := int(u32(cblc, sub+8)), int(u32(cblc, sub+20))
		if err := need(sub + 24 + 2*n); err != nil {
			return 0, 0, 0, err
		}
		for i := range n {
			if uint32(u16(cblc, sub+24+2*i)) == gid {
				return base + size*i, base + size*(i+1), imageFormat, nil
			}
		}
	default:
		return 0, 0, 0, fmt.Errorf("emoji font: CBLC index format %d not read", indexFormat)
	}
	return 0, 0, 0, fmt.Errorf("emoji font: glyph %d: %w", gid, errNoGlyph)
}

// pngOf takes the PNG out of a CBDT glyph record of image format 17, 18 or 19.
func pngOf(rec []byte, format uint16) ([]byte, error) {
	skip := map[uint16]int{17: 5, 18: 8, 19: 0}
	n, ok := skip[format]
	if !ok {
		return nil, fmt.Errorf("emoji font: CBDT image format %d is not PNG", format)
	}
	if len(rec) < n+4 {
		return nil, errors.New("emoji font: glyph record cut short")
	}
	size := int(u32(rec, n))
	png := rec[n+4:]
	if size > len(png) || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		return nil, errors.New("emoji font: glyph record holds no PNG")
	}
	return png[:size], nil
}

func u16(b []byte, off int) uint16 {
	if off < 0 || off+2 > len(b) {
		return 0
	}
	return binary.BigEndian.Uint16(b[off:])
}

func u32(b []byte, off int) uint32 {
	if off < 0 || off+4 > len(b) {
		return 0
	}
	return binary.BigEndian.Uint32(b[off:])
}
