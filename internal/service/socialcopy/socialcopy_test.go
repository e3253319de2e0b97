package socialcopy

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// talk is a clip as the pipeline makes it, with a transcript.
var talk = Clip{
	Title:       "Clip 1 of Go  Testing (0:00–0:12)",
	Description: "0:00 to 0:12 of Go Testing (12 s), chosen by ClipBasic curation.",
	Text:        "table tests keep cases apart.\nthey read well!! do they scale? yes.",
	Hashtags:    "#Go #Testing",
	Keywords:    []string{"go", "table tests", "Testing"},
}

func TestGenerate(t *testing.T) {
	cases := []struct {
		name             string
		clip             Clip
		platform, prompt string
		want             Copy
	}{
		{"neutral", talk, "LINKEDIN", "", Copy{
			Title:       "Clip 1 of Go Testing (0:00–0:12)",
			Description: "table tests keep cases apart. they read well!! do they scale? yes.",
			Hashtags:    "#Go #Testing #TableTests",
		}},
		{"no text: the clip's description", Clip{Title: "T", Description: "About  this.", Keywords: []string{"x"}}, "LINKEDIN", "",
			Copy{Title: "T", Description: "About this.", Hashtags: "#x"}},
		{"no title: the text's first sentence", Clip{Text: "First one. Second one."}, "TIKTOK_BUSINESS", "",
			Copy{Title: "First one.", Description: "First one. Second one."}},
		{"no title nor text: the description's first sentence", Clip{Description: "Only this! And more."}, "FACEBOOK_PAGE", "",
			Copy{Title: "Only this!", Description: "Only this! And more."}},
		{"only keywords", Clip{Keywords: []string{" go ", "", "rust"}}, "FACEBOOK_PAGE", "",
			Copy{Title: "go, rust", Hashtags: "#go #rust"}},
		{"empty clip", Clip{}, "TWITTER", "formal", Copy{}},
		{"formal", talk, "LINKEDIN", "Make it formal please", Copy{
			Title:       "Clip 1 of Go Testing (0:00–0:12)",
			Description: "Table tests keep cases apart. They read well. Do they scale? Yes.",
			Hashtags:    "#Go #Testing #TableTests",
		}},
		{"casual", talk, "LINKEDIN", "casual", Copy{
			Title:       "clip 1 of go testing (0:00–0:12)",
			Description: "table tests keep cases apart. they read well!! do they scale? yes.",
			Hashtags:    "#Go #Testing #TableTests",
		}},
		{"excited", talk, "LINKEDIN", "ENTHUSIASTIC!", Copy{
			Title:       "Clip 1 of Go Testing (0:00–0:12)!",
			Description: "table tests keep cases apart. they read well!! do they scale? yes!",
			Hashtags:    "#Go #Testing #TableTests",
		}},
		{"question", talk, "LINKEDIN", "end with a question", Copy{
			Title:       "Clip 1 of Go Testing (0:00–0:12)",
			Description: "table tests keep cases apart. they read well!! do they scale? yes. What do you think?",
			Hashtags:    "#Go #Testing #TableTests",
		}},
		{"concise", Clip{Title: "T", Text: "One. Two.", Keywords: []string{"a", "b", "c", "d"}}, "LINKEDIN", "keep it short", Copy{
			Title: "T", Description: "One.", Hashtags: "#a #b #c",
		}},
		{"negated tone is no tone", talk, "LINKEDIN", "not formal", Copy{
			Title:       "Clip 1 of Go Testing (0:00–0:12)",
			Description: "table tests keep cases apart. they read well!! do they scale? yes.",
			Hashtags:    "#Go #Testing #TableTests",
		}},
		{"youtube drops angle brackets", Clip{Title: "a <b> c", Text: "x > y"}, "YOUTUBE", "",
			Copy{Title: "a b c", Description: "x y"}},
		{"youtube title 100", Clip{Title: strings.Repeat("word ", 30)}, "YOUTUBE", "",
			Copy{Title: strings.TrimSpace(strings.Repeat("word ", 20)) + "…"}},
		{"hashtags get a quarter of the post", Clip{Title: "T", Keywords: numbered("abcdefghi", 10)}, "TWITTER", "",
			Copy{Title: "T", Hashtags: "#abcdefghi1 #abcdefghi2 #abcdefghi3 #abcdefghi4 #abcdefghi5"}},
		{"twitter shares 280 between all parts", Clip{Title: "Title", Text: strings.Repeat("abcd ", 100), Hashtags: "#one #two"}, "TWITTER", "",
			Copy{Title: "Title", Description: strings.TrimSpace(strings.Repeat("abcd ", 52)) + "…", Hashtags: "#one #two"}},
		{"instagram keeps 30 hashtags", Clip{Title: "T", Keywords: numbered("k", 35)}, "INSTAGRAM_BUSINESS", "",
			Copy{Title: "T", Hashtags: strings.Join(Hashtags(numbered("k", 30)...), " ")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Generate(c.clip, c.platform, c.prompt)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Generate =\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i+1)
	}
	return out
}

// TestGenerateFits checks the limits of every platform against clips far
// over them, in scripts the platforms count differently.
func TestGenerateFits(t *testing.T) {
	long := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	clips := map[string]Clip{
		"latin":     {Title: long("headline", 40), Text: long("sentence.", 9000), Keywords: numbered("tag", 80)},
		"cjk":       {Title: long("見出し", 60), Text: long("これは文です。", 12000), Keywords: []string{"日本語", "動画"}},
		"emoji":     {Title: long("🎬🎉", 80), Text: long("😀 ok", 30000), Hashtags: "#🎬 #fun"},
		"one word":  {Title: strings.Repeat("x", 500), Text: strings.Repeat("y", 70000)},
		"tags only": {Title: "t", Keywords: numbered("averyveryverylongtagname", 200)},
	}
	for _, platform := range apitypes.SocialPlatforms {
		lim := platformLimits[platform]
		for name, clip := range clips {
			for _, prompt := range []string{"", "formal", "excited", "question"} {
				got, err := Generate(clip, platform, prompt)
				if err != nil {
					t.Fatal(err)
				}
				where := platform + "/" + name + "/" + prompt
				if n := width(lim.postOf(got), lim.postUnit); n > lim.postMax {
					t.Errorf("%s: post counts %d, limit %d", where, n, lim.postMax)
				}
				if lim.titleMax > 0 && width(got.Title, lim.titleUnit) > lim.titleMax {
					t.Errorf("%s: title counts %d, limit %d", where, width(got.Title, lim.titleUnit), lim.titleMax)
				}
				if tags := strings.Fields(got.Hashtags); lim.maxHashtags > 0 && len(tags) > lim.maxHashtags {
					t.Errorf("%s: %d hashtags, limit %d", where, len(tags), lim.maxHashtags)
				}
				if got.Title == "" || !utf8.ValidString(got.Title+got.Description+got.Hashtags) {
					t.Errorf("%s: empty title or invalid UTF-8: %+v", where, got)
				}
				if got.Description == "" && name != "tags only" {
					t.Errorf("%s: no room left for the description", where)
				}
			}
		}
	}
}

// TestUnknownPromptChangesNothing: a prompt without a tone word gives the
// neutral copy on every platform.
func TestUnknownPromptChangesNothing(t *testing.T) {
	for _, platform := range apitypes.SocialPlatforms {
		neutral, err := Generate(talk, platform, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, prompt := range []string{"make it pop", "mention our new product launch", "in French", "uppercase", "formality"} {
			if got, _ := Generate(talk, platform, prompt); got != neutral {
				t.Errorf("%s, prompt %q: %+v, want the neutral %+v", platform, prompt, got, neutral)
			}
		}
	}
}

func TestEveryPlatformHasLimits(t *testing.T) {
	for _, p := range apitypes.SocialPlatforms {
		if _, ok := platformLimits[p]; !ok {
			t.Errorf("platform %s has no limits", p)
		}
	}
	if _, err := Generate(talk, "MYSPACE", ""); err == nil || !strings.Contains(err.Error(), "MYSPACE") {
		t.Errorf("unknown platform: %v, want an error naming it", err)
	}
}

func TestHashtags(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
	}{
		{[]string{"machine learning", "Go", "go", " ", "#go"}, []string{"#MachineLearning", "#Go"}},
		{[]string{"#Q&A", "c++", "e-mail"}, []string{"#QA", "#c", "#EMail"}},
		{[]string{"##", ""}, nil},
		{[]string{"日本語", "#日本語"}, []string{"#日本語"}},
	}
	for _, c := range cases {
		if got := Hashtags(c.in...); !slices.Equal(got, c.want) {
			t.Errorf("Hashtags(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFirstSentence(t *testing.T) {
	cases := map[string]string{
		"One. Two.":           "One.",
		"Version 3.5 is out!": "Version 3.5 is out!",
		"no end":              "no end",
		"Why? Because.":       "Why?",
		"":                    "",
	}
	for in, want := range cases {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
