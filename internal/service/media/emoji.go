package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// EmojiTable maps a caption's key words (lower case; a plural "s" is dropped when only the
// singular is listed) to the colour emoji drawn while the word is spoken. The guide lists it.
var EmojiTable = map[string]rune{
	"fire": 0x1F525, "hot": 0x1F525, "water": 0x1F4A7, "rain": 0x1F327, "garden": 0x1F331, "plant": 0x1F331,
	"tree": 0x1F333, "flower": 0x1F338, "sun": 0x2600, "star": 0x2B50, "world": 0x1F30D, "earth": 0x1F30D,
	"money": 0x1F4B0, "cash": 0x1F4B0, "dollar": 0x1F4B5, "love": 0x2764, "heart": 0x2764,
	"happy": 0x1F600, "laugh": 0x1F602, "funny": 0x1F602, "sad": 0x1F622, "cry": 0x1F622, "angry": 0x1F620,
	"wow": 0x1F62E, "secret": 0x1F92B, "idea": 0x1F4A1, "think": 0x1F914, "question": 0x2753,
	"rocket": 0x1F680, "fast": 0x26A1, "power": 0x26A1, "energy": 0x26A1, "music": 0x1F3B5, "song": 0x1F3B5,
	"time": 0x23F0, "clock": 0x23F0, "coffee": 0x2615, "pizza": 0x1F355, "food": 0x1F354, "cook": 0x1F373,
	"dog": 0x1F436, "cat": 0x1F431, "win": 0x1F3C6, "winner": 0x1F3C6, "trophy": 0x1F3C6, "goal": 0x1F3AF,
	"target": 0x1F3AF, "phone": 0x1F4F1, "book": 0x1F4DA, "learn": 0x1F4DA, "car": 0x1F697, "home": 0x1F3E0,
	"house": 0x1F3E0, "party": 0x1F389, "gift": 0x1F381, "camera": 0x1F4F7, "video": 0x1F3AC, "game": 0x1F3AE,
	"warning": 0x26A0, "danger": 0x26A0, "check": 0x2705,
}

// Emoji are colour emoji drawn over a clip for its words found in EmojiTable.
type Emoji struct {
	Words []CaptionWord // the clip's words, timed from its start
	// Rect, when set, is the box (x, y, width, height in percent of the frame) the emoji is
	// fitted and centred in; else Pos places it.
	Rect *[4]float64
	// Pos is "top", "middle" (or "center") or "bottom", with "left" or "right" in it for a
	// side; "" puts the emoji just above the caption line (below it for top captions).
	Pos string
	// ScaleX and ScaleY multiply the emoji's width and height (0 = 1); its size is
	// emojiSizeX times the caption font's.
	ScaleX, ScaleY float64
	// CaptionPosition and CaptionSizePct are the captions' (CaptionStyle), for the default place.
	CaptionPosition string
	CaptionSizePct  float64
}

const (
	emojiSizeX = 2.2 // the emoji's height over the caption font size
	// minEmojiSec: an emoji shows at least this long, so a short word's is seen.
	minEmojiSec       = 0.6
	maxEmoji          = 24 // emoji drawn in one clip at most, keeping the filtergraph small
	emojiFontFallback = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
)

// emojiWord is the table's emoji for a spoken word, if any.
func emojiWord(w string) (rune, bool) {
	w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if r, ok := EmojiTable[w]; ok {
		return r, true
	}
	if s, ok := strings.CutSuffix(w, "s"); ok && len(s) > 2 {
		r, ok := EmojiTable[s]
		return r, ok
	}
	return 0, false
}

// emojiSpan is an emoji shown from Start to End (clip seconds).
type emojiSpan struct {
	r          rune
	start, end float64
}

// emojiSpans are the emoji of the words: each from its word's start for at least
// minEmojiSec, ending where the next one starts.
func emojiSpans(words []CaptionWord) []emojiSpan {
	var out []emojiSpan
	for _, w := range words {
		r, ok := emojiWord(w.Text)
		if !ok {
			continue
		}
		if n := len(out); n > 0 && out[n-1].end > w.Start {
			out[n-1].end = w.Start
		}
		out = append(out, emojiSpan{r, w.Start, math.Max(w.End, w.Start+minEmojiSec)})
		if len(out) == maxEmoji {
			break
		}
	}
	return out
}

// emojiBox is the emoji's place and size (pixels) in a w x h frame.
func emojiBox(e Emoji, w, h int) (x, y, bw, bh int) {
	if r := e.Rect; r != nil {
		rx, ry, rw, rh := r[0]*float64(w)/100, r[1]*float64(h)/100, r[2]*float64(w)/100, r[3]*float64(h)/100
		side := math.Max(8, math.Min(rw, rh))
		return int(rx + (rw-side)/2), int(ry + (rh-side)/2), evenRound(side), evenRound(side)
	}
	sizePct := e.CaptionSizePct
	if sizePct <= 0 {
		sizePct = defaultCaptionSizePct
	}
	fs := float64(h) * sizePct / 100
	sx, sy := e.ScaleX, e.ScaleY
	if sx <= 0 {
		sx = 1
	}
	if sy <= 0 {
		sy = 1
	}
	bw, bh = evenRound(fs*emojiSizeX*sx), evenRound(fs*emojiSizeX*sy)
	bw, bh = min(bw, w), min(bh, h)
	margin := h * 6 / 100
	pos := strings.ToLower(e.Pos)
	x = (w - bw) / 2
	switch {
	case strings.Contains(pos, "left"):
		x = w * 6 / 100
	case strings.Contains(pos, "right"):
		x = w - w*6/100 - bw
	}
	switch {
	case strings.Contains(pos, "top"):
		y = margin
	case strings.Contains(pos, "middle"), strings.Contains(pos, "center"), strings.Contains(pos, "centre"):
		y = (h - bh) / 2
	case strings.Contains(pos, "bottom"):
		y = h - margin - bh
	default:
		// Beside the caption line: above it, or below it when the captions are at the top.
		align, marginPct := captionAlignment(e.CaptionPosition)
		line := fs * 1.3
		switch align {
		case 8:
			y = h*marginPct/100 + int(line) + int(fs/3)
		case 5:
			y = h/2 - int(line/2) - bh - int(fs/3)
		default:
			y = h - h*marginPct/100 - int(line) - bh - int(fs/3)
		}
	}
	return min(max(0, x), w-bw), min(max(0, y), h-bh), bw, bh
}

// emojiFilter is the chain that overlays the words' emoji on the picture so far (appended to
// a filter chain: it starts by labelling it); "" when no word is in the table.
func emojiFilter(e Emoji, size [2]int, tmp string) (string, error) {
	spans := emojiSpans(e.Words)
	if len(spans) == 0 {
		return "", nil
	}
	font, err := emojiFont()
	if err != nil {
		return "", err
	}
	x, y, bw, bh := emojiBox(e, size[0], size[1])
	byRune := map[rune][]emojiSpan{}
	var order []rune
	for _, s := range spans {
		if byRune[s.r] == nil {
			order = append(order, s.r)
		}
		byRune[s.r] = append(byRune[s.r], s)
	}
	sort.Slice(order, func(i, j int) bool { return byRune[order[i]][0].start < byRune[order[j]][0].start })
	var b strings.Builder
	for i, r := range order {
		png, err := font.PNG(r)
		if err != nil {
			return "", fmt.Errorf("render: emoji: %w", err)
		}
		file := filepath.Join(tmp, fmt.Sprintf("emoji%d.png", i))
		if err := os.WriteFile(file, png, 0o600); err != nil {
			return "", fmt.Errorf("render: emoji: %w", err)
		}
		var on []string
		for _, s := range byRune[r] {
			on = append(on, fmt.Sprintf("between(t,%.3f,%.3f)", s.start, s.end))
		}
		fmt.Fprintf(&b, "[emb%d];movie=filename=%s,scale=%d:%d:flags=lanczos,format=rgba[emo%d];[emb%d][emo%d]overlay=x=%d:y=%d:enable='%s'",
			i, toolexec.FilterValue(file), bw, bh, i, i, i, x, y, strings.Join(on, "+"))
	}
	return b.String(), nil
}

var (
	emojiFontOnce sync.Once
	emojiFontVal  *colorFont
	emojiFontErr  error
)

// emojiFont opens Noto Color Emoji (as fontconfig finds it, else Debian's path) once.
func emojiFont() (*colorFont, error) {
	emojiFontOnce.Do(func() {
		path := emojiFontFallback
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if out, err := toolexec.Command(ctx, "fc-list", ":family=Noto Color Emoji", "file").Output(); err == nil {
			if f := strings.TrimSuffix(strings.TrimSpace(string(bytes.SplitN(out, []byte("\n"), 2)[0])), ":"); f != "" {
				path = f
			}
		}
		emojiFontVal, emojiFontErr = openColorFont(path)
		if errors.Is(emojiFontErr, os.ErrNotExist) {
			emojiFontErr = errors.New("render: emoji need the Noto Color Emoji font (Debian fonts-noto-color-emoji; scripts/ensure-tools.sh fonts)")
		}
	})
	return emojiFontVal, emojiFontErr
}
