package rules

import "testing"

func TestVideoURL(t *testing.T) {
	checkStringRule(t, VideoURL, []stringCase{
		{"https://www.youtube.com/watch?v=abc", ""},
		{"http://videos.example.com/talk.mp4", ""},
		{"upl_01HXYZ-abc.def", ""},
		{"file:///tmp/a.mp4", VideoURLRule + `: "file:///tmp/a.mp4" has scheme "file"`},
		{"https:///talk.mp4", "has no host"},
		{"my video.mp4", VideoURLRule + ` (letters, digits, '.', '_' and '-'), not "my video.mp4"`},
		{"/tmp/a.mp4", "upload id"},
		{"up:load", "upload id"},
		{"", "upload id"},
	})
}
