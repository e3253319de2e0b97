package socialcopy

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// limits are what one platform accepts in a post, and how the copy shares
// it.
//
// On YOUTUBE the title is a field of its own; the description and the
// hashtags (which YouTube reads from the description) make up the "post".
// On the other platforms a post is one text, so the post is the title, the
// description and the hashtags joined by blank lines: whichever of them the
// publisher sends, the whole fits.
type limits struct {
	titleMax    int // at most 100 everywhere: YouTube's limit, and a headline's length on the others
	titleUnit   unit
	titleInPost bool
	postMax     int
	postUnit    unit
	// maxHashtags is how many hashtags a post may carry; 0: no limit.
	maxHashtags int
	// noAngles drops '<' and '>', which YouTube refuses in titles and
	// descriptions.
	noAngles bool
}

// platformLimits are the limits of each platform of apitypes.SocialPlatforms:
//
//	YOUTUBE             title 100 characters, description 5000 bytes (YouTube Data API,
//	                    videos: snippet.title, snippet.description; neither may contain < or >);
//	                    at most 60 hashtags (YouTube ignores every hashtag of a video with more)
//	TIKTOK_BUSINESS     caption 2200 UTF-16 code units (TikTok Content Posting API, post_info.title)
//	INSTAGRAM_BUSINESS  caption 2200 characters, at most 30 hashtags (Instagram Graph API, media caption)
//	LINKEDIN            post text 3000 characters (LinkedIn Posts API, commentary)
//	FACEBOOK_PAGE       post text 63206 characters (Facebook's post length limit)
//	TWITTER             post text 280 weighted characters (X "counting characters": code points
//	                    U+0000–U+10FF, U+2000–U+200D, U+2010–U+201F and U+2032–U+2037 weigh 1,
//	                    all others 2, as in twitter-text's configuration v3)
//
// A "character" is a Unicode code point. Counts err on the long side where a
// platform counts less (an emoji sequence, a decomposed accent); one thing
// they do not model is X counting every link as 23.
var platformLimits = map[string]limits{
	"YOUTUBE":            {titleMax: 100, titleUnit: codePoint, postMax: 5000, postUnit: utf8Byte, maxHashtags: 60, noAngles: true},
	"TIKTOK_BUSINESS":    {titleMax: 100, titleUnit: utf16Unit, titleInPost: true, postMax: 2200, postUnit: utf16Unit},
	"INSTAGRAM_BUSINESS": {titleMax: 100, titleUnit: codePoint, titleInPost: true, postMax: 2200, postUnit: codePoint, maxHashtags: 30},
	"LINKEDIN":           {titleMax: 100, titleUnit: codePoint, titleInPost: true, postMax: 3000, postUnit: codePoint},
	"FACEBOOK_PAGE":      {titleMax: 100, titleUnit: codePoint, titleInPost: true, postMax: 63206, postUnit: codePoint},
	"TWITTER":            {titleMax: 100, titleUnit: twitterWeight, titleInPost: true, postMax: 280, postUnit: twitterWeight},
}

// hashtagShare is the part of a post the hashtags may fill, so that they
// never crowd out the description (on TWITTER: 70 of 280).
const hashtagShare = 4

// unit is how a platform counts one code point. Every platform's count is a
// sum over code points, so a prefix's count is known as it is read.
type unit func(rune) int

func codePoint(rune) int { return 1 }

// utf8Byte counts an invalid byte (read as U+FFFD) as the 3 bytes it may
// become, erring long.
func utf8Byte(r rune) int { return utf8.RuneLen(r) }

func utf16Unit(r rune) int { return utf16.RuneLen(r) }

func twitterWeight(r rune) int {
	switch {
	case r <= 0x10FF, r >= 0x2000 && r <= 0x200D, r >= 0x2010 && r <= 0x201F, r >= 0x2032 && r <= 0x2037:
		return 1
	}
	return 2
}

// width is s counted in u.
func width(s string, u unit) int {
	n := 0
	for _, r := range s {
		n += u(r)
	}
	return n
}

// blankLine separates the parts of a post.
const blankLine = "\n\n"

// post is the text that must fit postMax: the non-empty parts joined by
// blank lines.
func post(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, blankLine)
}

// postOf is the post of c under l.
func (l limits) postOf(c Copy) string {
	if l.titleInPost {
		return post(c.Title, c.Description, c.Hashtags)
	}
	return post(c.Description, c.Hashtags)
}

// fit cuts the copy to l: the title to its limit, the hashtags to the
// platform's count and to a quarter of the post (whole tags, the first
// ones kept), and the description to the room left.
func (l limits) fit(title, desc string, tags []string) Copy {
	if l.noAngles {
		title, desc = dropAngles(title), dropAngles(desc)
	}
	c := Copy{Title: truncate(title, l.titleMax, l.titleUnit), Hashtags: strings.Join(l.keptHashtags(tags), " ")}
	room := l.postMax - width(l.postOf(c), l.postUnit)
	if l.postOf(c) != "" {
		room -= width(blankLine, l.postUnit)
	}
	c.Description = truncate(desc, room, l.postUnit)
	return c
}

// keptHashtags are the first tags within maxHashtags and the hashtag share.
func (l limits) keptHashtags(tags []string) []string {
	used := 0
	for n, t := range tags {
		w := width(t, l.postUnit)
		if n > 0 {
			w++ // the space before it
		}
		if n == l.maxHashtags && l.maxHashtags > 0 || used+w > l.postMax/hashtagShare {
			return tags[:n]
		}
		used += w
	}
	return tags
}

func dropAngles(s string) string {
	return clean(strings.Map(func(r rune) rune {
		if r == '<' || r == '>' {
			return ' '
		}
		return r
	}, s))
}

// ellipsis ends a cut text.
const ellipsis = "…"

// truncate returns s when it counts at most limit in u; otherwise the
// longest run of whole words from its start that fits with an ellipsis after
// it (a first word too long on its own is cut inside), without the spaces and
// dangling punctuation before the ellipsis. Nothing fits in a limit smaller
// than the ellipsis: the result is "".
func truncate(s string, limit int, u unit) string {
	if width(s, u) <= limit {
		return s
	}
	budget := limit - width(ellipsis, u)
	if budget <= 0 {
		return ""
	}
	used, end, lastSpace := 0, 0, -1
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if unicode.IsSpace(r) {
			lastSpace = end // the words before it fit
		}
		if used+u(r) > budget {
			break
		}
		used += u(r)
		end += size
	}
	if lastSpace > 0 {
		end = lastSpace
	}
	kept := strings.TrimRightFunc(s[:end], func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:-–—.", r)
	})
	if kept == "" {
		return ""
	}
	return kept + ellipsis
}
