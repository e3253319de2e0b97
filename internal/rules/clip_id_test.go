package rules

import "testing"

func TestBareClipID(t *testing.T) {
	checkStringRule(t, BareClipID, []stringCase{
		{"c01", ""},
		{"c123", ""},
		{"curation_9f", ""},
		{"", "is required: the bare clip id: the curationId"},
		{"prj_1.c01", BareClipIDRule + `, not the composite id "prj_1.c01"`},
		{".c01", "not the composite id"},
		{"c01.", "not the composite id"},
		{" c01", BareClipIDRule + `, not " c01"`},
		{"c 01", BareClipIDRule},
		{"p/c01", BareClipIDRule},
	})
}

func TestSplitContentID(t *testing.T) {
	cases := []struct{ in, project, clip, want string }{
		{in: "prj_1.c01", project: "prj_1", clip: "c01"},
		{in: "3f2a9c0d.curation_9f", project: "3f2a9c0d", clip: "curation_9f"},
		{in: "", want: "is required: the clip id {projectId}.{curationId}"},
		{in: "c01", want: ContentIDRule + `, not "c01"`},
		{in: "prj_1.", want: ContentIDRule + `, not "prj_1."`},
		{in: "prj_1.c.01", want: ContentIDRule + ` with one dot and no spaces, not "prj_1.c.01"`},
		{in: "prj_1.c 01", want: "with one dot and no spaces"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			project, clip, err := SplitContentID(tc.in)
			wantBroken(t, err, "", tc.want)
			if project != tc.project || clip != tc.clip {
				t.Errorf("split into %q, %q; want %q, %q", project, clip, tc.project, tc.clip)
			}
		})
	}
}
