package socialcopy

import (
	"slices"
	"testing"
)

func TestToneOf(t *testing.T) {
	cases := []struct {
		prompt string
		want   Tone
	}{
		{"", Neutral},
		{"make it pop", Neutral},
		{"formality", Neutral}, // whole words only
		{"Formal", Formal},
		{"a professional tone for LinkedIn", Formal},
		{"casual and friendly", Casual},
		{"informal", Casual},
		{"super-excited!!!", Excited},
		{"HYPE it up", Excited},
		{"ask the audience a question", Question},
		{"keep it short", Concise},
		{"short and formal", Concise}, // the first tone word wins
		{"formal, but short", Formal},
		{"not formal", Neutral},
		{"don't be formal, be casual", Casual},
		{"don’t sound corporate", Neutral},
		{"no hype, professional", Formal},
		{"non-formal", Neutral},
		{"not too formal", Neutral},
		{"not a question", Neutral},
		{"nothing formal", Formal}, // a negation cancels only across fillers
	}
	for _, c := range cases {
		if got := ToneOf(c.prompt); got != c.want {
			t.Errorf("ToneOf(%q) = %q, want %q", c.prompt, got, c.want)
		}
	}
}

func TestToneApply(t *testing.T) {
	tags := []string{"#a", "#b", "#c", "#d"}
	cases := []struct {
		tone                Tone
		title, desc         string
		wantTitle, wantDesc string
		wantTags            []string
	}{
		{Neutral, "Clip 1 of the talk", "wow!! really?! ok.", "Clip 1 of the talk", "wow!! really?! ok.", tags},
		{Formal, "the state of AI in 2025!", "wow!! really?! ok. (fine) yes", "The State of AI in 2025.", "Wow. Really? Ok. (Fine) yes", tags},
		{Formal, "Of mice and men", "", "Of Mice and Men", "", tags},
		{Casual, "The State of AI Today.", "Keep. This!", "the state of AI today", "Keep. This!", tags},
		{Casual, "NASA Plans for an iPhone", "", "NASA plans for an iphone", "", tags},
		{Excited, "Big news.", "It works.", "Big news!", "It works!", tags},
		{Excited, "Why?", "Done!", "Why?", "Done!", tags},
		{Excited, "", "", "", "", tags},
		{Question, "T", "It works.", "T", "It works. What do you think?", tags},
		{Question, "T", "", "T", "What do you think?", tags},
		{Concise, "T", "One. Two. Three.", "T", "One.", tags[:3]},
		{Concise, "T", "No end", "T", "No end", tags[:3]},
	}
	for _, c := range cases {
		title, desc, gotTags := c.tone.apply(c.title, c.desc, tags)
		if title != c.wantTitle || desc != c.wantDesc || !slices.Equal(gotTags, c.wantTags) {
			t.Errorf("%q.apply(%q, %q) = %q, %q, %q; want %q, %q, %q",
				c.tone, c.title, c.desc, title, desc, gotTags, c.wantTitle, c.wantDesc, c.wantTags)
		}
	}
}
